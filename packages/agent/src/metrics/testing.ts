import type { MetricsLoopDeps } from "./loop";

/**
 * A metrics loop's deps for tests: cluster `cluster-1` (Istio cluster ID `east`, no relays), the
 * chart's defaults (a read every 60 s, a report every 300 s, 1,000 edges, 30 s to settle), always
 * the leader, a quiet log, no jitter, a control plane that takes everything; `over` replaces any.
 */
export function testLoopDeps(over: Partial<MetricsLoopDeps> & Pick<MetricsLoopDeps, "readMinute">): MetricsLoopDeps {
  return {
    cluster: "cluster-1",
    context: () => ({ istioClusterId: "east", relays: new Set() }),
    post: async () => undefined,
    active: () => true,
    log: { info: () => undefined, error: () => undefined },
    intervalMs: 60_000,
    sendEveryMs: 300_000,
    maxEdges: 1000,
    settleMs: 30_000,
    random: () => 0,
    ...over,
  };
}
