import { describe, expect, it } from "vitest";
import type { ResourceStatus } from "../api/status";
import { type Condition, MAX_STATUS_ENTRIES, type Submission, authoredStatus } from "./conditions";

const T0 = "2026-11-27T10:00:00Z";
const T1 = "2026-11-27T10:05:00Z";
const stored: Submission = { generation: 4, state: "stored", name: "cart-retries.shop.east", storedGeneration: 2 };
const applied = (a: boolean, b: boolean): ResourceStatus => ({
  observedGeneration: 2,
  state: "ACCEPTED",
  clusters: { east: { generation: 7, applied: a }, west: { generation: 5, applied: b } },
});

/** The conditions as `type=status` and the reason they share. */
function summary(submission: Submission, status: ResourceStatus | undefined) {
  const out = authoredStatus(submission, status, undefined, T0);
  return { conditions: out.conditions.map((c) => `${c.type}=${c.status}`), reason: out.conditions[0]?.reason };
}

describe("the status written into a custom resource (docs/gitops.md#status-in-the-cluster)", () => {
  it.each<[string, Submission, ResourceStatus | undefined, string[], string]>([
    ["not yet sent, or the control plane unreachable", { generation: 4, state: "submitting" }, undefined, ["Ready=Unknown", "Reconciling=True"], "Submitting"],
    [
      "refused by meshplane's validation",
      { generation: 4, state: "refused", reason: "Invalid", errors: ["spec.policy.retries.attempts: too big"] },
      undefined,
      ["Ready=False", "Stalled=True"],
      "Invalid",
    ],
    [
      "outside the cluster's grant",
      { generation: 4, state: "refused", reason: "OutsideGrant", errors: ["spec.destinationSelector[0]…: selects cluster west"] },
      undefined,
      ["Ready=False", "Stalled=True"],
      "OutsideGrant",
    ],
    ["stored, not translated yet", stored, undefined, ["Ready=Unknown", "Reconciling=True"], "Translating"],
    ["stored, an older generation translated", stored, { observedGeneration: 1, state: "ACCEPTED" }, ["Ready=Unknown", "Reconciling=True"], "Translating"],
    ["stored, pending", stored, { observedGeneration: 2, state: "PENDING" }, ["Ready=Unknown", "Reconciling=True"], "Translating"],
    ["translated, waiting for a cluster to apply it", stored, applied(true, false), ["Ready=False", "Reconciling=True"], "Applying"],
    ["ACCEPTED and applied by every cluster it reaches", stored, applied(true, true), ["Ready=True"], "Accepted"],
    [
      "INVALID",
      stored,
      { observedGeneration: 2, state: "INVALID", errors: ["conflicts with TrafficPolicy other"] },
      ["Ready=False", "Stalled=True"],
      "Invalid",
    ],
    [
      "FAILED (a cluster refused its output)",
      stored,
      { observedGeneration: 2, state: "FAILED", clusters: { east: { generation: 7, applied: false, errors: ["VirtualService shop/cart: denied"] } } },
      ["Ready=False", "Stalled=True"],
      "Failed",
    ],
  ])("%s", (_situation, submission, status, conditions, reason) => {
    expect(summary(submission, status)).toEqual({ conditions, reason });
  });

  it("says why in each condition's message, at the submitted generation", () => {
    const failed: ResourceStatus = {
      observedGeneration: 2,
      state: "FAILED",
      errors: ["top"],
      destinations: { "cart-shop-east": { state: "FAILED", errors: ["no port"] } } as never,
      clusters: { east: { generation: 7, applied: false, errors: ["VirtualService shop/cart: denied"] } },
    };
    const out = authoredStatus(stored, failed, undefined, T0);
    expect(out.observedGeneration).toBe(4);
    for (const c of out.conditions) {
      expect(c).toMatchObject({
        observedGeneration: 4,
        lastTransitionTime: T0,
        message: "top; cart-shop-east: no port; east: VirtualService shop/cart: denied",
      });
    }
    expect(authoredStatus(stored, applied(true, false), undefined, T0).conditions[0]?.message).toBe("waiting for west to apply it");
    expect(authoredStatus(stored, applied(true, true), undefined, T0).conditions[0]?.message).toBe("applied in east, west");
    expect(authoredStatus(stored, { observedGeneration: 2, state: "ACCEPTED" }, undefined, T0).conditions[0]?.message).toMatch(/^accepted; it selects nothing/);
  });

  it("carries meshplane's own status of the stored resource, and a refusal's errors", () => {
    expect(authoredStatus(stored, applied(true, true), undefined, T0).meshplane).toEqual({
      name: "cart-retries.shop.east",
      state: "ACCEPTED",
      clusters: applied(true, true).clusters,
    });
    const refused = authoredStatus({ generation: 4, state: "refused", reason: "Invalid", errors: ["a", "b"] }, undefined, undefined, T0);
    expect(refused.meshplane).toEqual({ errors: ["a", "b"] });
    expect(refused.conditions[0]?.message).toBe("a; b");
    expect(authoredStatus({ generation: 4, state: "submitting" }, undefined, undefined, T0).meshplane).toBeUndefined();
  });

  it("keeps a condition's lastTransitionTime while its status stays, and moves it when the status changes", () => {
    const waiting = authoredStatus(stored, applied(true, false), undefined, T0);
    const still = authoredStatus(stored, applied(true, false), waiting.conditions, T1);
    expect(still.conditions.map((c) => c.lastTransitionTime)).toEqual([T0, T0]);
    const ready = authoredStatus(stored, applied(true, true), still.conditions, T1);
    expect(ready.conditions).toEqual([expect.objectContaining<Partial<Condition>>({ type: "Ready", status: "True", lastTransitionTime: T1 })]);
    // Reason and message move with the verdict; the time only with the status.
    const translating = authoredStatus({ ...stored, generation: 5, storedGeneration: 3 }, applied(true, true), waiting.conditions, T1);
    expect(translating.conditions.map((c) => [c.type, c.lastTransitionTime])).toEqual([
      ["Ready", T1],
      ["Reconciling", T0],
    ]);
  });

  it("bounds the destinations and clusters it copies, counting the rest, and clips long messages", () => {
    const many = Object.fromEntries(
      Array.from({ length: MAX_STATUS_ENTRIES + 25 }, (_, i) => [`c-${String(i).padStart(3, "0")}`, { generation: 1, applied: true }]),
    );
    const destinations = Object.fromEntries(
      Array.from({ length: MAX_STATUS_ENTRIES + 1 }, (_, i) => [`d-${String(i).padStart(3, "0")}`, { state: "ACCEPTED" }]),
    );
    const out = authoredStatus(stored, { observedGeneration: 2, state: "ACCEPTED", clusters: many, destinations: destinations as never }, undefined, T0);
    expect(Object.keys(out.meshplane?.clusters ?? {})).toHaveLength(MAX_STATUS_ENTRIES);
    expect(Object.keys(out.meshplane?.clusters ?? {})[0]).toBe("c-000");
    expect(out.meshplane?.clustersOmitted).toBe(25);
    expect(Object.keys(out.meshplane?.destinations ?? {})).toHaveLength(MAX_STATUS_ENTRIES);
    expect(out.meshplane?.destinationsOmitted).toBe(1);
    const exact = authoredStatus(stored, applied(true, true), undefined, T0);
    expect(exact.meshplane).not.toHaveProperty("clustersOmitted");
    const long = authoredStatus({ generation: 4, state: "refused", reason: "Invalid", errors: ["x".repeat(10_000)] }, undefined, undefined, T0);
    expect(long.conditions[0]?.message).toHaveLength(4096);
    expect(long.conditions[0]?.message.endsWith("…")).toBe(true);
    expect(long.meshplane?.errors?.[0]).toHaveLength(4096);
  });
});
