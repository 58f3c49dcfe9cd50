import { describe, expect, it } from "vitest";
import { type ClusterHealth, type ClusterView, type SnapshotView, STALE_AFTER_S, ago, certificateDays, problemsOf, secondsSince } from "./health";

const NOW = new Date("2025-06-01T12:00:00.000Z");
const DAY_MS = 86_400_000;
const before = (seconds: number) => new Date(NOW.getTime() - seconds * 1000).toISOString();
const inDays = (days: number) => new Date(NOW.getTime() + days * DAY_MS).toISOString();
const OPTIONS = { staleAfterS: STALE_AFTER_S, certificateWarnDays: 7 };
const NOT_REGISTERED = "its agent has not registered yet: install it with the helm line from `meshplane cluster register` (or `cluster bootstrap-token`)";

function health(cluster: Partial<ClusterView> = {}, snapshot: Partial<SnapshotView> = {}): ClusterHealth {
  return {
    cluster: { name: "cluster-east", state: "registered", createdAt: "2025-05-01T00:00:00.000Z", lastSeenAt: before(30), appliedGeneration: 3, ...cluster },
    snapshot: {
      generation: 3,
      appliedGeneration: 3,
      inSync: true,
      lastSeenAt: before(30),
      signedAt: before(60),
      failures: [],
      agentError: null,
      objects: [],
      ...snapshot,
    },
  };
}

describe("secondsSince", () => {
  it.each([null, undefined, ""])("is undefined for %j", (iso) => {
    expect(secondsSince(iso, NOW)).toBeUndefined();
  });

  it("counts whole seconds, rounded, and never below zero", () => {
    expect(secondsSince(before(90), NOW)).toBe(90);
    expect(secondsSince(before(1.4), NOW)).toBe(1);
    expect(secondsSince(before(1.6), NOW)).toBe(2);
    expect(secondsSince(before(-300), NOW)).toBe(0);
    expect(secondsSince("2025-06-01T11:00:00Z", NOW)).toBe(3600);
  });
});

describe("ago", () => {
  it.each<[number | undefined, string]>([
    [undefined, "never"],
    [0, "0s ago"],
    [119, "119s ago"],
    [120, "2m ago"],
    [5400, "90m ago"],
    [7199, "120m ago"],
    [7200, "2h ago"],
    [172_799, "48h ago"],
    [172_800, "2d ago"],
    [30 * 86_400, "30d ago"],
  ])("says %j seconds as %s", (seconds, expected) => {
    expect(ago(seconds)).toBe(expected);
  });
});

const certified = (certificates?: ClusterView["certificates"]): ClusterView => ({
  name: "cluster-east",
  state: "registered",
  createdAt: "2025-05-01T00:00:00.000Z",
  ...(certificates ? { certificates } : {}),
});

describe("certificateDays", () => {
  it("is undefined without a certificate that expires", () => {
    expect(certificateDays(certified(), NOW)).toBeUndefined();
    expect(certificateDays(certified([]), NOW)).toBeUndefined();
    expect(certificateDays(certified([{ mesh: "m", state: "pending" }]), NOW)).toBeUndefined();
  });

  it("is the earliest expiry in whole days, rounded down", () => {
    expect(
      certificateDays(
        certified([
          { mesh: "a", state: "issued", notAfter: inDays(10.5) },
          { mesh: "b", state: "issued", notAfter: inDays(3.9) },
          { mesh: "c", state: "pending" },
        ]),
        NOW,
      ),
    ).toBe(3);
    expect(certificateDays(certified([{ mesh: "a", state: "issued", notAfter: inDays(-0.5) }]), NOW)).toBe(-1);
  });
});

describe("problemsOf", () => {
  it("finds nothing wrong with a registered, recently seen, applied cluster", () => {
    expect(problemsOf(health({ certificates: [{ mesh: "m", state: "issued", notAfter: inDays(30) }] }), NOW, OPTIONS)).toEqual([]);
  });

  it("says an unregistered agent is not registered, and not that it is stale", () => {
    expect(problemsOf(health({ state: "pending", lastSeenAt: undefined }, { lastSeenAt: null, generation: 0, appliedGeneration: 0 }), NOW, OPTIONS)).toEqual([
      NOT_REGISTERED,
    ]);
  });

  it("says when a registered agent was last seen once that is longer ago than allowed", () => {
    expect(problemsOf(health({}, { lastSeenAt: before(STALE_AFTER_S) }), NOW, OPTIONS)).toEqual([]);
    expect(problemsOf(health({}, { lastSeenAt: before(STALE_AFTER_S + 1) }), NOW, OPTIONS)).toEqual([
      "its agent was last seen 10m ago: is it running and can it reach the control plane?",
    ]);
    expect(problemsOf(health({}, { lastSeenAt: before(100) }), NOW, { ...OPTIONS, staleAfterS: 60 })).toEqual([
      "its agent was last seen 100s ago: is it running and can it reach the control plane?",
    ]);
  });

  it("reads the snapshot's last-seen time before the cluster's", () => {
    expect(problemsOf(health({ lastSeenAt: before(86_400) }, { lastSeenAt: before(5) }), NOW, OPTIONS)).toEqual([]);
    expect(problemsOf(health({ lastSeenAt: before(3 * 3600) }, { lastSeenAt: null }), NOW, OPTIONS)).toEqual([
      "its agent was last seen 3h ago: is it running and can it reach the control plane?",
    ]);
    expect(problemsOf(health({ lastSeenAt: undefined }, { lastSeenAt: null }), NOW, OPTIONS)).toEqual([
      "its agent was last seen never: is it running and can it reach the control plane?",
    ]);
  });

  it("reports the agent's error", () => {
    expect(problemsOf(health({}, { agentError: "snapshot signature does not verify" }), NOW, OPTIONS)).toEqual([
      "its agent applied nothing: snapshot signature does not verify",
    ]);
  });

  it("reports an agent that could not read its Prometheus, or whose metrics report was refused", () => {
    const at = before(30);
    expect(problemsOf(health({ metrics: { state: "ok", at } }), NOW, OPTIONS)).toEqual([]);
    expect(problemsOf(health({ metrics: { state: "unavailable", message: "Prometheus at http://prom:9090 is unreachable", at } }), NOW, OPTIONS)).toEqual([
      "its agent could not read the cluster's Prometheus: Prometheus at http://prom:9090 is unreachable (the agent chart's metrics.prometheus values say where and how)",
    ]);
    expect(problemsOf(health({ metrics: { state: "partial", at } }), NOW, OPTIONS)).toEqual([
      "its agent read only part of the cluster's Prometheus (the agent chart's metrics.prometheus values say where and how)",
    ]);
    expect(problemsOf(health({ metrics: { state: "refused", message: "edges.0.source.workload: must be at most 253 characters", at } }), NOW, OPTIONS)).toEqual(
      ["the control plane refused its agent's metrics report: edges.0.source.workload: must be at most 253 characters"],
    );
  });

  it("reports an applied generation behind the latest, but not before the first snapshot", () => {
    expect(problemsOf(health({}, { generation: 7, appliedGeneration: 5, inSync: false }), NOW, OPTIONS)).toEqual(["applied generation 5, latest 7"]);
    expect(problemsOf(health({}, { generation: 0, appliedGeneration: 0 }), NOW, OPTIONS)).toEqual([]);
    expect(problemsOf(health({}, { generation: 0, appliedGeneration: 2 }), NOW, OPTIONS)).toEqual([]);
  });

  it("reports each object that failed to apply, with its namespace and error when known", () => {
    const failures = [
      { kind: "ServiceEntry", namespace: "istio-system", name: "reviews-bookinfo-cluster-east", error: "admission webhook denied" },
      { kind: "PeerAuthentication", name: "default" },
    ];
    expect(problemsOf(health({}, { failures }), NOW, OPTIONS)).toEqual([
      "failed to apply ServiceEntry istio-system/reviews-bookinfo-cluster-east: admission webhook denied",
      "failed to apply PeerAuthentication default",
    ]);
  });

  it("reports failed certificates and those expiring within the warning days", () => {
    const certificates: ClusterView["certificates"] = [
      { mesh: "failed-with-error", state: "failed", notAfter: inDays(1), error: "CSR rejected" },
      { mesh: "failed", state: "failed" },
      { mesh: "soon", state: "issued", notAfter: inDays(6.9) },
      { mesh: "expired", state: "issued", notAfter: inDays(-2) },
      { mesh: "at-limit", state: "issued", notAfter: inDays(7) },
      { mesh: "pending", state: "pending" },
    ];
    expect(problemsOf(health({ certificates }), NOW, OPTIONS)).toEqual([
      "certificates of mesh failed-with-error failed: CSR rejected",
      "certificates of mesh failed failed",
      `the intermediate CA of mesh soon expires in 6 day(s) (${inDays(6.9)})`,
      `the intermediate CA of mesh expired expired 2 day(s) ago (${inDays(-2)}): its workloads' certificates stop renewing`,
    ]);
    expect(
      problemsOf(health({ certificates: [{ mesh: "soon", state: "issued", notAfter: inDays(6.9) }] }), NOW, { ...OPTIONS, certificateWarnDays: 0 }),
    ).toEqual([]);
  });

  it("lists every problem in order: registration, agent error, generation, failures, certificates", () => {
    const h = health(
      { state: "pending", certificates: [{ mesh: "m", state: "failed" }] },
      { agentError: "no RBAC", generation: 2, appliedGeneration: 1, failures: [{ kind: "Gateway", namespace: "istio-system", name: "east-west" }] },
    );
    expect(problemsOf(h, NOW, OPTIONS)).toEqual([
      NOT_REGISTERED,
      "its agent applied nothing: no RBAC",
      "applied generation 1, latest 2",
      "failed to apply Gateway istio-system/east-west",
      "certificates of mesh m failed",
    ]);
  });
});
