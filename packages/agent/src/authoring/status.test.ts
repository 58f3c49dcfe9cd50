import type { AuthoredView } from "@meshplane/core";
import { describe, expect, it } from "vitest";
import type { CustomResource } from "./objects";
import { mergePatchOf, nextStatus, sameStatus, submissionFor } from "./status";

const cr = (generation: number, status?: CustomResource["status"]): CustomResource => ({
  kind: "TrafficPolicy",
  metadata: { namespace: "shop", name: "cart", uid: "u1", generation },
  spec: {},
  ...(status ? { status } : {}),
});
const view = (generation: number, over: Partial<AuthoredView> = {}): AuthoredView => ({
  kind: "TrafficPolicy",
  name: "cart.shop.east",
  generation: 3,
  source: { cluster: "east", namespace: "shop", name: "cart", uid: "u1", generation },
  status: { observedGeneration: 3, state: "ACCEPTED", clusters: { east: { generation: 1, applied: true } } },
  ...over,
});
const NOW = "2031-03-15T12:00:00.000Z";

describe("the status written back", () => {
  it("is about what the agent knows of this generation, else what the control plane holds of it, else still to be sent", () => {
    const stored = { generation: 2, state: "stored", name: "cart.shop.east", storedGeneration: 3 } as const;
    expect(submissionFor(cr(2), stored, undefined)).toBe(stored);
    expect(submissionFor(cr(2), undefined, view(2))).toEqual(stored);
    expect(submissionFor(cr(3), stored, view(2), "not sent yet: unreachable")).toEqual({
      generation: 3,
      state: "submitting",
      message: "not sent yet: unreachable",
    });
    expect(submissionFor(cr(2), undefined, view(2, { source: { ...view(2).source, uid: "other" } }))).toMatchObject({ state: "submitting" });
  });

  it("is written only when it says something new: a lastTransitionTime alone is no change", () => {
    const submission = { generation: 2, state: "stored", name: "cart.shop.east", storedGeneration: 3 } as const;
    const first = nextStatus(cr(2), submission, view(2), NOW);
    expect(first?.conditions).toEqual([
      { type: "Ready", status: "True", reason: "Accepted", message: "applied in east", observedGeneration: 2, lastTransitionTime: NOW },
    ]);
    const held = cr(2, { ...first, conditions: first?.conditions.map((c) => ({ ...c, lastTransitionTime: "2031-01-01T00:00:00Z" })) } as never);
    expect(nextStatus(held, submission, view(2), NOW)).toBeUndefined();
    expect(sameStatus({ conditions: [{ type: "Ready", lastTransitionTime: "a" }] }, { conditions: [{ type: "Ready", lastTransitionTime: "b" }] })).toBe(true);
    // A view of another name (a resource of the same uid stored elsewhere) is not this one's.
    expect(nextStatus(held, submission, view(2, { name: "cart.shop.west" }), NOW)?.conditions[0]?.reason).toBe("Translating");
  });

  it("is a merge patch that removes what the new status no longer has", () => {
    const from = { observedGeneration: 1, conditions: [{ type: "Stalled" }], meshplane: { errors: ["x"], name: "n", destinations: { a: 1, b: 2 } } };
    const to = { observedGeneration: 2, conditions: [{ type: "Ready" }], meshplane: { name: "n", destinations: { a: 1 } } };
    expect(mergePatchOf(from, to)).toEqual({ observedGeneration: 2, conditions: [{ type: "Ready" }], meshplane: { errors: null, destinations: { b: null } } });
    expect(mergePatchOf(undefined, to)).toEqual(to);
  });
});
