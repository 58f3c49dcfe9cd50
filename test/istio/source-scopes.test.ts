/**
 * Source-scoped DestinationRule settings judged by Istio's own config generation: a TrafficPolicy
 * with a sourceSelector changes the outbound clusters only of the callers it selects, every other
 * caller keeps the service's rule, and what Istio cannot scope is refused rather than over-applied.
 */
import { describe, expect, it } from "vitest";
import { clustersOf, judgeGolden, pool, proxyConfig, sidecars } from "./features-support";
import type { Envoy } from "./judge";

const REVIEWS = "reviews.bookinfo.svc.cluster.local";
const REVIEWS_FROM_CLUSTER_2 = "reviews.bookinfo.svc.cluster-1.global";
/** What Istio writes when no rule sets a limit (Envoy's maximum). */
const NO_LIMIT = 4294967295;

/** The DestinationRule settings a caller's sidecar applies to `host`: the same on every cluster of it. */
function effect(
  judgedName: string,
  proxy: string,
  host: string,
  cluster = "cluster-1",
): { consecutive5xx: unknown; maxConnections: unknown; lbPolicy: unknown; tls: boolean } {
  const config = proxyConfig(judgeGolden(judgedName), proxy, cluster);
  const clusters = clustersOf(config, host, 9080);
  if (clusters.length === 0) throw new Error(`${proxy} has no outbound cluster for ${host}`);
  const read = clusters.map((c) => ({
    consecutive5xx: (c.outlierDetection as Envoy | undefined)?.consecutive5xx,
    maxConnections: pool(c).maxConnections,
    lbPolicy: c.lbPolicy,
    tls: c.transportSocket !== undefined || c.transportSocketMatches !== undefined,
  }));
  for (const r of read) expect(r, `${proxy}: every cluster of ${host} alike`).toEqual(read[0]);
  return read[0] as ReturnType<typeof effect>;
}

describe("source-scoped DestinationRule settings", () => {
  it.each([
    // Selected by labels in another namespace: narrower outlier detection, its connection pool.
    ["frontend/web", { consecutive5xx: 3, maxConnections: 10, lbPolicy: "LEAST_REQUEST" }],
    // Same namespace, not selected: the copy of the service's rule.
    ["frontend/admin", { consecutive5xx: 7, maxConnections: NO_LIMIT, lbPolicy: "LEAST_REQUEST" }],
    // Every caller of namespace mobile.
    ["mobile/app", { consecutive5xx: 7, maxConnections: NO_LIMIT, lbPolicy: "RANDOM" }],
    // Selected by labels in the service's own namespace.
    ["bookinfo/productpage-v1", { consecutive5xx: 7, maxConnections: 5, lbPolicy: "LEAST_REQUEST" }],
    // Selected by nothing but the policy for every caller.
    ["bookinfo/reviews-v1", { consecutive5xx: 7, maxConnections: NO_LIMIT, lbPolicy: "LEAST_REQUEST" }],
    ["jobs/batch", { consecutive5xx: 7, maxConnections: NO_LIMIT, lbPolicy: "LEAST_REQUEST" }],
  ])("source-scoped-destination-rule: %s", (proxy, expected) => {
    expect(effect("source-scoped-destination-rule", proxy, REVIEWS)).toEqual({ ...expected, tls: true });
  });

  it("source-scoped-destination-rule: every sidecar is one of the callers above", () => {
    expect(sidecars(judgeGolden("source-scoped-destination-rule")).sort()).toEqual(
      ["bookinfo/productpage-v1", "bookinfo/reviews-v1", "frontend/admin", "frontend/web", "jobs/batch", "mobile/app"].sort(),
    );
  });

  it.each([
    // The refused namespace-wide policy reaches nobody; the accepted labelled ones share one rule.
    ["bookinfo/productpage-v1", { consecutive5xx: undefined, maxConnections: NO_LIMIT }],
    ["frontend/web", { consecutive5xx: 3, maxConnections: 4 }],
  ])("source-scoped-destination-rule-refused: %s", (proxy, expected) => {
    const { consecutive5xx, maxConnections } = effect("source-scoped-destination-rule-refused", proxy, REVIEWS);
    expect({ consecutive5xx, maxConnections }).toEqual(expected);
  });

  it.each([
    // cluster-1's callers: no policy selects them.
    ["cluster-1", "bookinfo/reviews-v1", REVIEWS, { consecutive5xx: undefined, maxConnections: NO_LIMIT }],
    // cluster-2: every caller gets the cluster-2 policy; web also its labelled pool.
    ["cluster-2", "frontend/web", REVIEWS_FROM_CLUSTER_2, { consecutive5xx: 4, maxConnections: 6 }],
    ["cluster-2", "frontend/admin", REVIEWS_FROM_CLUSTER_2, { consecutive5xx: 4, maxConnections: NO_LIMIT }],
    ["cluster-2", "bookinfo/reviews-v3", REVIEWS_FROM_CLUSTER_2, { consecutive5xx: 4, maxConnections: NO_LIMIT }],
  ])("source-scoped-destination-rule-federated: %s %s", (cluster, proxy, host, expected) => {
    const { consecutive5xx, maxConnections, tls } = effect("source-scoped-destination-rule-federated", proxy, host, cluster);
    expect({ consecutive5xx, maxConnections, tls }).toEqual({ ...expected, tls: true });
  });
});
