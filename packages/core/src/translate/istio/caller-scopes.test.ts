import { describe, expect, it } from "vitest";
import { OwnedFields } from "../policy/owned-fields";
import { type CallerScope, overlapErrors, overlay, type ScopedFields, scopeKey } from "./caller-scopes";

function cell(scope: CallerScope, owner: string): [string, ScopedFields] {
  const fields = new OwnedFields();
  fields.commit({ outlierDetection: { consecutive5xxErrors: 3 } }, owner);
  return [scopeKey(scope), { scope, fields }];
}

describe("caller scopes", () => {
  it("keys ignore label order and tell namespace-wide from labelled scopes", () => {
    expect(scopeKey({ cluster: "c1", namespace: "ns", labels: { a: "1", b: "2" } })).toBe(
      scopeKey({ cluster: "c1", namespace: "ns", labels: { b: "2", a: "1" } }),
    );
    expect(scopeKey({ cluster: "c1", namespace: "ns" })).not.toBe(scopeKey({ cluster: "c1", namespace: "ns", labels: {} }));
    expect(scopeKey({ cluster: "c1" })).not.toBe(scopeKey({ cluster: "c1", namespace: "" }));
  });

  it("refuses labelled scopes a workload could match together, in the same cluster and namespace only", () => {
    const existing = new Map([cell({ cluster: "c1", namespace: "web", labels: { tier: "web" } }, "first")]);
    const overlapping = { cluster: "c1", namespace: "web", labels: { app: "shop" } };
    expect(overlapErrors([overlapping], existing)).toEqual([
      expect.stringContaining("overlap labels {tier=web} of TrafficPolicy first for callers in namespace web of cluster c1"),
    ]);
    // The same labels share a rule; conflicting values cannot both match; elsewhere is another rule.
    expect(overlapErrors([{ cluster: "c1", namespace: "web", labels: { tier: "web" } }], existing)).toEqual([]);
    expect(overlapErrors([{ cluster: "c1", namespace: "web", labels: { tier: "ops", app: "shop" } }], existing)).toEqual([]);
    expect(overlapErrors([{ cluster: "c1", namespace: "api", labels: { app: "shop" } }], existing)).toEqual([]);
    expect(overlapErrors([{ cluster: "c2", namespace: "web", labels: { app: "shop" } }], existing)).toEqual([]);
    // A namespace-wide scope is the namespace's fallback rule, not a competing selected one.
    expect(overlapErrors([{ cluster: "c1", namespace: "web" }], existing)).toEqual([]);
  });

  it("overlays narrower fields leaf by leaf, lists replaced whole", () => {
    const base = { outlierDetection: { consecutive5xxErrors: 7, interval: "5s" }, tls: { mode: "ISTIO_MUTUAL" }, list: [1, 2] };
    expect(overlay(base, { outlierDetection: { consecutive5xxErrors: 3 }, list: [3] })).toEqual({
      outlierDetection: { consecutive5xxErrors: 3, interval: "5s" },
      tls: { mode: "ISTIO_MUTUAL" },
      list: [3],
    });
    expect(base.outlierDetection.consecutive5xxErrors).toBe(7);
    expect(overlay(base, undefined)).toBe(base);
  });
});
