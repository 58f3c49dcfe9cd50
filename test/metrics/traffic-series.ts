/**
 * The series the traffic (./traffic-flows.ts) leaves in each cluster's Prometheus, as Istio's proxies
 * and a `kubernetes-pods` scrape job would: one sample every 15 s from the base time to the end, every
 * series present throughout. See ./traffic-model.ts for the model as a whole.
 */
import type { Series } from "../support/prometheus/remote-write";
import {
  BUCKETS,
  CLUSTER_IDS,
  type ClusterName,
  type Destination,
  EAST_WEST_GATEWAY,
  EVENTS,
  type Flow,
  LATENCY_BOUNDS_MS,
  type TcpCounts,
  WAYPOINT_WORKLOAD,
  type Workload,
  allocate,
  tunnelCounts,
  zeros,
} from "./traffic-flows";

export const STEP_S = 15;
const STEPS_PER_MINUTE = 60 / STEP_S;
/** A series' value at the base time: an hour of its first minute's traffic (pods ran before the model starts). */
const HISTORY_MINUTES = 60;

/**
 * A bound as Prometheus 3 stores a scraped `le` (Go's FormatOpenMetricsFloat): `1.0` for 1, and the
 * exponent form from 10^6 on (`1.8e+06`, `3.6e+06`). Readers must parse `le` as a number.
 */
export function leLabel(bound: number): string {
  if (bound === Number.POSITIVE_INFINITY) return "+Inf";
  const [mantissa, e] = bound.toExponential().split("e");
  const exp = Number(e);
  if (exp < -4 || exp >= 6) return `${mantissa}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
  const plain = String(bound);
  return /[.e]/.test(plain) ? plain : `${plain}.0`;
}

/** The `le` label of each bucket, +Inf last. */
export const LE_LABELS: readonly string[] = [...LATENCY_BOUNDS_MS.map(leLabel), "+Inf"];

/** The value `_sum` adds per request of a bucket: its middle (twice the last bound for +Inf). */
const MIDDLES = LATENCY_BOUNDS_MS.map((upper, i) => (upper + (i === 0 ? 0 : (LATENCY_BOUNDS_MS[i - 1] as number))) / 2);
MIDDLES.push((LATENCY_BOUNDS_MS[LATENCY_BOUNDS_MS.length - 1] as number) * 2);

const canonical = (workload: string) => /^(.*)-(v\d+)$/.exec(workload);

function side(prefix: "source" | "destination", w: Workload): Record<string, string> {
  const c = canonical(w.workload);
  return {
    [`${prefix}_workload`]: w.workload,
    [`${prefix}_workload_namespace`]: w.namespace,
    [`${prefix}_canonical_service`]: c?.[1] ?? w.workload,
    [`${prefix}_canonical_revision`]: c?.[2] ?? "latest",
    [`${prefix}_principal`]: `spiffe://cluster.local/ns/${w.namespace}/sa/${c?.[1] ?? w.workload}`,
    [`${prefix}_app`]: c?.[1] ?? w.workload,
    [`${prefix}_version`]: c?.[2] ?? "unknown",
    [`${prefix}_cluster`]: CLUSTER_IDS[w.cluster],
  };
}

/** Istio's labels of a request or connection from `src` to `dst` (outcome labels aside). */
function istioLabels(src: Workload, dst: Destination, protocol: string, csp: string): Record<string, string> {
  return {
    ...side("source", src),
    ...side("destination", dst),
    destination_service: `${dst.service}.${dst.namespace}.svc.cluster.local`,
    destination_service_name: dst.service,
    destination_service_namespace: dst.namespace,
    request_protocol: protocol,
    connection_security_policy: csp,
  };
}

/** Who reports a copy of a flow, in whose Prometheus, from which pods (their namespace), with which labels. */
interface Copy {
  cluster: ClusterName;
  reporter: "source" | "destination" | "waypoint";
  pods: readonly string[];
  podNamespace: string;
  labels: Record<string, string>;
  /** L7 copies count the flow's requests; TCP copies these counts per minute. */
  tcp?: (m: number) => TcpCounts;
}

const ZTUNNEL_PODS = { client: "ztunnel-4k7xq", server: "ztunnel-9p2mz" } as const;
const gatewayPod = (workload: string) => `${workload}-7d6c5b8f9-g4h5j`;

/** The copies of a flow: see `Path` in ./traffic-flows.ts. */
function copiesOf(flow: Flow): Copy[] {
  const { source: src, destination: dst } = flow;
  const client = (labels: Record<string, string>, tcp?: Copy["tcp"]): Copy => ({
    cluster: src.cluster,
    reporter: "source",
    pods: src.pods,
    podNamespace: src.namespace,
    labels,
    tcp,
  });
  const server = (labels: Record<string, string>, tcp?: Copy["tcp"]): Copy => ({
    cluster: dst.cluster,
    reporter: "destination",
    pods: dst.pods,
    podNamespace: dst.namespace,
    labels,
    tcp,
  });
  if (flow.protocol === "tcp") {
    const labels = { ...istioLabels(src, dst, "tcp", "mutual_tls"), response_flags: "-" };
    return [
      { ...client(labels, flow.minute), pods: [ZTUNNEL_PODS.client], podNamespace: "istio-system" },
      { ...server(labels, flow.minute), pods: [ZTUNNEL_PODS.server], podNamespace: "istio-system" },
    ];
  }
  const tunnel = (m: number) => tunnelCounts(flow, m);
  if (flow.path === "waypoint") {
    const waypoint: Workload = { cluster: dst.cluster, namespace: dst.namespace, workload: WAYPOINT_WORKLOAD, pods: [gatewayPod(WAYPOINT_WORKLOAD)] };
    const hop = { response_flags: "-" };
    return [
      {
        cluster: dst.cluster,
        reporter: "waypoint",
        pods: waypoint.pods,
        podNamespace: dst.namespace,
        labels: istioLabels(src, dst, flow.protocol, "mutual_tls"),
      },
      // ztunnel's hops: the client's to the waypoint (destination_workload the waypoint), the waypoint's to the backend.
      {
        ...client({ ...istioLabels(src, { ...waypoint, service: dst.service, namespace: dst.namespace }, "tcp", "mutual_tls"), ...hop }, tunnel),
        pods: [ZTUNNEL_PODS.client],
        podNamespace: "istio-system",
      },
      { ...server({ ...istioLabels(waypoint, dst, "tcp", "mutual_tls"), ...hop }, tunnel), pods: [ZTUNNEL_PODS.server], podNamespace: "istio-system" },
    ];
  }
  const copies = [client(istioLabels(src, dst, flow.protocol, "unknown")), server(istioLabels(src, dst, flow.protocol, "mutual_tls"))];
  if (flow.path === "east-west") {
    const gateway: Workload = { cluster: dst.cluster, ...EAST_WEST_GATEWAY, pods: [gatewayPod(EAST_WEST_GATEWAY.workload)] };
    copies.push({
      cluster: dst.cluster,
      reporter: "source",
      pods: gateway.pods,
      podNamespace: gateway.namespace,
      labels: { ...istioLabels(gateway, dst, "tcp", "unknown"), response_flags: "-" },
      tcp: tunnel,
    });
  }
  return copies;
}

/** Target labels a `kubernetes-pods` scrape job adds: the agent must not rely on their absence. */
function targetLabels(cluster: ClusterName, namespace: string, pod: string): Record<string, string> {
  let h = 0;
  for (const ch of pod) h = (h * 31 + ch.charCodeAt(0)) % 65021;
  const app = /^(.*?)(-[0-9a-f]{9}-[a-z0-9]{5}|-[a-z0-9]{5}|-\d+)$/.exec(pod)?.[1] ?? pod;
  return { job: "kubernetes-pods", namespace, pod, instance: `10.${cluster === "cluster-1" ? 1 : 2}.${h >> 8}.${h & 255}:15020`, app };
}

/** Per step, a minute's counts spread over its 15 s steps and then over `pods` (pod `k` of them). */
function stepsOf(minutes: number, perMinute: (m: number) => number, pods: number, k: number): number[] {
  const steps: number[] = [];
  for (let m = 0; m < minutes; m++) {
    for (const n of allocate(
      perMinute(m),
      Array.from({ length: STEPS_PER_MINUTE }, () => 1),
    ))
      steps.push(
        allocate(
          n,
          Array.from({ length: pods }, () => 1),
        )[k] as number,
      );
  }
  return steps;
}

/** Per sample, a counter from its per-step increments: its history first, then a restart where the events put one. */
function cumulate(steps: readonly number[], restartAt: number | undefined): number[] {
  const values = [HISTORY_MINUTES * steps.slice(0, STEPS_PER_MINUTE).reduce((a, b) => a + b, 0)];
  steps.forEach((inc, s) => values.push(s === restartAt ? inc : (values[s] as number) + inc));
  const before = restartAt === undefined ? 0 : (values[restartAt] as number);
  if (restartAt !== undefined && before > 0 && (values[restartAt + STEPS_PER_MINUTE] as number) >= before) {
    // The model's rule (the value after a reset is the increase since it) needs the reset to show from one minute to the next.
    throw new Error("a restart that does not show as a decrease at minute resolution");
  }
  return values;
}

/** Istio's TCP counters and the count each holds. */
const TCP_METRICS: readonly [string, keyof TcpCounts][] = [
  ["istio_tcp_connections_opened_total", "opened"],
  ["istio_tcp_connections_closed_total", "closed"],
  ["istio_tcp_received_bytes_total", "bytesIn"],
  ["istio_tcp_sent_bytes_total", "bytesOut"],
];

const plus = (a: readonly number[], b: readonly number[]) => a.map((v, i) => v + (b[i] as number));
const times = (a: readonly number[], k: number) => a.map((v) => v * k);

/** The series of every copy of every flow, per cluster, with samples at `base + 15 s × i` (seconds). */
export function seriesOf(flows: readonly Flow[], base: number, minutes: number): Record<ClusterName, Series[]> {
  const out: Record<ClusterName, Series[]> = { "cluster-1": [], "cluster-2": [] };
  const at: number[] = [];
  for (let i = 0; i <= minutes * STEPS_PER_MINUTE; i++) at.push((base + i * STEP_S) * 1000);
  const add = (cluster: ClusterName, name: string, labels: Record<string, string>, values: readonly number[]) =>
    out[cluster].push({ labels: { __name__: name, ...labels }, samples: values.map((v, i) => [at[i] as number, v] as const) });
  for (const flow of flows) {
    for (const copy of copiesOf(flow)) {
      copy.pods.forEach((pod, k) => {
        const restartAt =
          EVENTS.restart.cluster === copy.cluster && EVENTS.restart.pod === pod ? EVENTS.restart.afterMinuteStart * STEPS_PER_MINUTE : undefined;
        const labels = { ...copy.labels, reporter: copy.reporter, ...targetLabels(copy.cluster, copy.podNamespace, pod) };
        const counter = (perMinute: (m: number) => number) => cumulate(stepsOf(minutes, perMinute, copy.pods.length, k), restartAt);
        const { tcp } = copy;
        if (tcp) {
          for (const [name, field] of TCP_METRICS)
            add(
              copy.cluster,
              name,
              labels,
              counter((m) => tcp(m)[field]),
            );
          return;
        }
        if (flow.protocol === "tcp") return;
        flow.outcomes.forEach((outcome, o) => {
          const codes = {
            response_code: outcome.code,
            response_flags: outcome.flags,
            ...(outcome.grpcStatus === undefined ? {} : { grpc_response_status: outcome.grpcStatus }),
          };
          const l = { ...labels, ...codes };
          // Each bucket is a counter of its own; every other series is a sum of them.
          const buckets = Array.from({ length: BUCKETS }, (_, j) => counter((m) => flow.minute(m)[o]?.[j] ?? 0));
          let below = zeros(at.length);
          buckets.forEach((bucket, j) => {
            below = plus(below, bucket);
            add(copy.cluster, "istio_request_duration_milliseconds_bucket", { ...l, le: LE_LABELS[j] as string }, below);
          });
          const count = below;
          add(copy.cluster, "istio_requests_total", l, count);
          add(copy.cluster, "istio_request_duration_milliseconds_count", l, count);
          add(
            copy.cluster,
            "istio_request_duration_milliseconds_sum",
            l,
            buckets.reduce((sum, b, j) => plus(sum, times(b, MIDDLES[j] as number)), zeros(at.length)),
          );
          add(copy.cluster, "istio_request_bytes_count", l, count);
          add(copy.cluster, "istio_request_bytes_sum", l, times(count, flow.requestBytes));
          add(copy.cluster, "istio_response_bytes_count", l, count);
          add(copy.cluster, "istio_response_bytes_sum", l, times(count, outcome.responseBytes));
        });
      });
    }
  }
  return out;
}
