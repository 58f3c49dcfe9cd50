/** The agent's Prometheus metrics, rendered in the text exposition format. */
export class Metrics {
  appliedGeneration = 0;
  managedObjects = 0;
  syncErrors = new Map<string, number>();
  driftCorrections = 0;
  discoveryReports = 0;
  leader = 0;
  /** Intermediates written into `cacerts`. */
  certificatesIssued = 0;
  /** Certificate or restart failures, by mesh (each is retried on a later cycle). */
  certificateErrors = new Map<string, number>();
  /** Restarts the agent made, by what it restarted (`istiod`, `workload`). */
  restarts = new Map<string, number>();
  /** Golden signals (docs/agent.md#metrics): minutes read from Prometheus, reads that failed, reports sent and dropped. */
  telemetry = { minutesRead: 0, readFailures: 0, reportsSent: 0, reportsDropped: 0, reportBytes: 0 };
  /** The authoring sync (docs/gitops.md#the-agent): custom resources answered, refused, deleted, waiting; status writes; errors. */
  authoring = { submitted: 0, refused: 0, deleted: 0, pending: 0, statusWrites: 0, errors: 0 };
  private pollCount = 0;
  private pollSeconds = 0;
  private readonly buckets = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
  private readonly bucketCounts = this.buckets.map(() => 0);

  observePoll(seconds: number): void {
    this.pollCount++;
    this.pollSeconds += seconds;
    this.buckets.forEach((b, i) => {
      if (seconds <= b) this.bucketCounts[i] = (this.bucketCounts[i] ?? 0) + 1;
    });
  }

  syncError(reason: string): void {
    this.syncErrors.set(reason, (this.syncErrors.get(reason) ?? 0) + 1);
  }

  certificateError(mesh: string): void {
    this.certificateErrors.set(mesh, (this.certificateErrors.get(mesh) ?? 0) + 1);
  }

  restarted(what: "istiod" | "workload"): void {
    this.restarts.set(what, (this.restarts.get(what) ?? 0) + 1);
  }

  render(): string {
    const lines = [
      "# HELP meshplane_agent_applied_generation The snapshot generation last applied to this cluster.",
      "# TYPE meshplane_agent_applied_generation gauge",
      `meshplane_agent_applied_generation ${this.appliedGeneration}`,
      "# HELP meshplane_agent_managed_objects Objects the agent manages in this cluster.",
      "# TYPE meshplane_agent_managed_objects gauge",
      `meshplane_agent_managed_objects ${this.managedObjects}`,
      "# HELP meshplane_agent_leader 1 when this replica holds the lease and applies.",
      "# TYPE meshplane_agent_leader gauge",
      `meshplane_agent_leader ${this.leader}`,
      "# HELP meshplane_agent_sync_errors_total Sync cycles that applied nothing, by reason.",
      "# TYPE meshplane_agent_sync_errors_total counter",
      ...[...this.syncErrors].map(([reason, n]) => `meshplane_agent_sync_errors_total{reason="${reason}"} ${n}`),
      "# HELP meshplane_agent_drift_corrections_total Managed objects found changed or deleted and restored.",
      "# TYPE meshplane_agent_drift_corrections_total counter",
      `meshplane_agent_drift_corrections_total ${this.driftCorrections}`,
      "# HELP meshplane_agent_discovery_reports_total Discovery reports sent.",
      "# TYPE meshplane_agent_discovery_reports_total counter",
      `meshplane_agent_discovery_reports_total ${this.discoveryReports}`,
      "# HELP meshplane_agent_certificates_issued_total Intermediate CAs written into cacerts.",
      "# TYPE meshplane_agent_certificates_issued_total counter",
      `meshplane_agent_certificates_issued_total ${this.certificatesIssued}`,
      "# HELP meshplane_agent_certificate_errors_total Failed certificate or restart steps, by mesh.",
      "# TYPE meshplane_agent_certificate_errors_total counter",
      ...[...this.certificateErrors].map(([mesh, n]) => `meshplane_agent_certificate_errors_total{mesh="${mesh}"} ${n}`),
      "# HELP meshplane_agent_restarts_total Rollouts the agent started after a CA change, by target.",
      "# TYPE meshplane_agent_restarts_total counter",
      ...[...this.restarts].map(([what, n]) => `meshplane_agent_restarts_total{target="${what}"} ${n}`),
      "# HELP meshplane_agent_telemetry_minutes_read_total Minutes of golden signals read from the cluster's Prometheus.",
      "# TYPE meshplane_agent_telemetry_minutes_read_total counter",
      `meshplane_agent_telemetry_minutes_read_total ${this.telemetry.minutesRead}`,
      "# HELP meshplane_agent_telemetry_read_failures_total Reads of the cluster's Prometheus that failed (the minute is read again later).",
      "# TYPE meshplane_agent_telemetry_read_failures_total counter",
      `meshplane_agent_telemetry_read_failures_total ${this.telemetry.readFailures}`,
      "# HELP meshplane_agent_telemetry_reports_total Metrics reports, by outcome: sent, or dropped when the control plane refused them.",
      "# TYPE meshplane_agent_telemetry_reports_total counter",
      `meshplane_agent_telemetry_reports_total{outcome="sent"} ${this.telemetry.reportsSent}`,
      `meshplane_agent_telemetry_reports_total{outcome="dropped"} ${this.telemetry.reportsDropped}`,
      "# HELP meshplane_agent_telemetry_report_bytes_total Bytes of metrics reports sent (gzip).",
      "# TYPE meshplane_agent_telemetry_report_bytes_total counter",
      `meshplane_agent_telemetry_report_bytes_total ${this.telemetry.reportBytes}`,
      "# HELP meshplane_agent_authoring_submitted_total Custom resources sent to the control plane and answered (stored or refused).",
      "# TYPE meshplane_agent_authoring_submitted_total counter",
      `meshplane_agent_authoring_submitted_total ${this.authoring.submitted}`,
      "# HELP meshplane_agent_authoring_refused_total Custom resources the control plane refused (Invalid, OutsideGrant, Conflict).",
      "# TYPE meshplane_agent_authoring_refused_total counter",
      `meshplane_agent_authoring_refused_total ${this.authoring.refused}`,
      "# HELP meshplane_agent_authoring_deleted_total Authored resources deleted in the control plane (a custom resource deleted, or gone at a sync).",
      "# TYPE meshplane_agent_authoring_deleted_total counter",
      `meshplane_agent_authoring_deleted_total ${this.authoring.deleted}`,
      "# HELP meshplane_agent_authoring_pending Custom resources waiting to be submitted or deleted, or in flight.",
      "# TYPE meshplane_agent_authoring_pending gauge",
      `meshplane_agent_authoring_pending ${this.authoring.pending}`,
      "# HELP meshplane_agent_authoring_status_writes_total Statuses written into custom resources.",
      "# TYPE meshplane_agent_authoring_status_writes_total counter",
      `meshplane_agent_authoring_status_writes_total ${this.authoring.statusWrites}`,
      "# HELP meshplane_agent_authoring_errors_total Failed authoring requests and writes (each is retried).",
      "# TYPE meshplane_agent_authoring_errors_total counter",
      `meshplane_agent_authoring_errors_total ${this.authoring.errors}`,
      "# HELP meshplane_agent_poll_duration_seconds Snapshot poll latency.",
      "# TYPE meshplane_agent_poll_duration_seconds histogram",
      ...this.buckets.map((b, i) => `meshplane_agent_poll_duration_seconds_bucket{le="${b}"} ${this.bucketCounts[i]}`),
      `meshplane_agent_poll_duration_seconds_bucket{le="+Inf"} ${this.pollCount}`,
      `meshplane_agent_poll_duration_seconds_sum ${this.pollSeconds}`,
      `meshplane_agent_poll_duration_seconds_count ${this.pollCount}`,
    ];
    return `${lines.join("\n")}\n`;
  }
}
