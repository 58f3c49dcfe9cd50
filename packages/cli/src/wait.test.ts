/**
 * `apply --wait` (docs/cli.md): a resource not translated yet is waited for; a translated one that is
 * PENDING for a reason (a TrafficPolicy whose calls wait for a VirtualMesh's shared trust) is waited
 * for too, saying on what; INVALID and FAILED end the wait with their reasons.
 */
import { describe, expect, it } from "vitest";
import { kindOf } from "./kinds";
import { progressOf } from "./wait";

const watched = { kind: kindOf("trafficpolicy") as NonNullable<ReturnType<typeof kindOf>>, name: "canary", generation: 2 };
const WHY =
  "trafficShift destination cluster-2/bookinfo/reviews: calls to it from mesh m1 wait for shared trust (the policy is applied here once it is issued): VirtualMesh vm is PENDING for mesh m2";

describe("apply --wait progress", () => {
  it("waits for translation while the status describes an older generation or has no reasons yet", () => {
    expect(progressOf(watched, undefined)).toMatchObject({ done: false, failed: false, line: "trafficpolicies/canary: waiting for translation" });
    expect(progressOf(watched, { observedGeneration: 2, state: "PENDING" })).toMatchObject({
      done: false,
      line: "trafficpolicies/canary: waiting for translation",
    });
    expect(progressOf(watched, { observedGeneration: 1, state: "PENDING", destinations: { reviews: { errors: [WHY] } } })).toMatchObject({
      line: "trafficpolicies/canary: waiting for translation",
    });
  });

  it("a translated PENDING policy is waited for, naming what it waits for", () => {
    const p = progressOf(watched, { observedGeneration: 2, state: "PENDING", destinations: { reviews: { errors: [WHY] } } });
    expect(p).toEqual({
      done: false,
      failed: false,
      line: `trafficpolicies/canary: PENDING, destination reviews: ${WHY}`,
      reasons: [`destination reviews: ${WHY}`],
    });
  });

  it("INVALID ends the wait with the reasons", () => {
    expect(progressOf(watched, { observedGeneration: 2, state: "INVALID", destinations: { reviews: { errors: ["boom"] } } })).toMatchObject({
      done: true,
      failed: true,
      reasons: ["destination reviews: boom"],
    });
  });
});
