import { type CertificateResult, type ObjectResult, type StatusReport, canonicalJson } from "@meshplane/core";
import type { ApplyMode, StageEnv } from "./env";
import { countByState as count } from "./object-results";

/** What the last status report said, so the next one is sent only when there is news. */
export interface Reported {
  /** The per-object results last reported; a report about certificates alone repeats them. */
  results: ObjectResult[];
  /** Canonical JSON of the certificate results last reported. */
  certificates: string;
}

export interface ReportInput {
  mode: ApplyMode;
  /** Whether this cycle applied and recorded a new snapshot: always news. */
  newSnapshot: boolean;
  /** The generation applied, as the state Secret records it. */
  generation: number;
  /** This cycle's apply then prune results (none when apply did not run). */
  results: ObjectResult[];
  /** Objects apply found changed or deleted since its last run. */
  drifted: readonly string[];
  /** One result per directive, after the certificate and restart stages. */
  certificates: CertificateResult[];
  reported: Reported;
}

export interface ReportOutput {
  /** The report to send, when there is news. */
  report?: StatusReport;
  /** What the control plane has been told once it is sent (the loop retries a report it could not deliver). */
  reported: Reported;
}

const failures = (results: readonly ObjectResult[]) => results.filter((r) => r.state === "failed");

/**
 * The report stage: decides what to tell the control plane — after a new snapshot, after a resync
 * that corrected drift, pruned, failed or no longer failed as last reported, and whenever a mesh's
 * certificate result changed (then with the object results last reported). Counts and logs corrected
 * drift.
 */
export function reportStage(env: Pick<StageEnv, "metrics" | "log">, input: ReportInput): ReportOutput {
  const { results, reported } = input;
  let news = input.newSnapshot;
  if (!input.newSnapshot && input.mode === "all") {
    const pruned = count(results, "pruned");
    if (input.drifted.length > 0 || pruned > 0 || count(results, "failed") > 0) {
      env.metrics.driftCorrections += input.drifted.length + pruned;
      env.log.info("drift corrected", { generation: input.generation, restored: input.drifted, pruned });
      news = true;
    }
    // A failure the last report named and this resync no longer meets (the apiserver was restarting,
    // a CRD arrived late) is news too: otherwise the control plane would show it until the next generation.
    if (count(reported.results, "failed") > 0 && canonicalJson(failures(reported.results)) !== canonicalJson(failures(results))) news = true;
  }
  const objects = input.mode === "none" ? reported.results : results;
  const json = canonicalJson(input.certificates);
  if (json !== reported.certificates) news = true;
  if (!news) return { reported: { results: objects, certificates: reported.certificates } };
  return { report: { generation: input.generation, results: objects, certificates: input.certificates }, reported: { results: objects, certificates: json } };
}
