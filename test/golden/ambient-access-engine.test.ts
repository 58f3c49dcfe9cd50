import { describe, expect, it } from "vitest";
import { Translator, type TranslateInput, translate } from "../../packages/core/src/translate/index";
import { readCase } from "./cases";
import { loadInput } from "./render";

// A policy with paths behind a waypoint is INVALID where its callers include sidecars
// (docs/ambient.md#accesspolicy): which workloads exist decides it, so the worker's Translator must
// redo the destination when a caller that backs no destination of its own changes data plane.
const input = (): TranslateInput => loadInput(readCase("ambient-access-waypoint-sidecar-callers", "input.yaml") as string);
const LEGACY = "reviews-read-from-legacy";

/** `input` with the workloads of namespace legacy that `pick` chooses in data plane `dataPlane` (new objects; the rest kept). */
function withLegacy(base: TranslateInput, dataPlane: "ambient" | "sidecar", pick: (name: string) => boolean): TranslateInput {
  const workloads = base.workloads.map((w) => (w.spec.namespace === "legacy" && pick(w.metadata.name) ? { ...w, spec: { ...w.spec, dataPlane } } : w));
  return { ...base, workloads };
}

describe("sidecar callers of a paths policy behind a waypoint", () => {
  it("the engine follows a caller that moves between sidecar and ambient, as translate does", () => {
    const ambient = withLegacy(input(), "ambient", () => true);
    const engine = new Translator();
    const first = engine.translate(ambient);
    expect(first).toEqual(translate(ambient));
    expect(first.statuses[`AccessPolicy/${LEGACY}`]?.state).toBe("ACCEPTED");
    const oneSidecar = withLegacy(ambient, "sidecar", (name) => name.startsWith("crm-"));
    const second = engine.translate(oneSidecar);
    expect(second).toEqual(translate(oneSidecar));
    expect(second.statuses[`AccessPolicy/${LEGACY}`]).toMatchObject({
      state: "INVALID",
      destinations: {
        "reviews-bookinfo-cluster-1": { errors: [expect.stringMatching(/^sourceSelector names sidecar workloads crm-legacy-cluster-1-deployment: /)] },
      },
    });
    const back = withLegacy(oneSidecar, "ambient", (name) => name.startsWith("crm-"));
    const third = engine.translate(back);
    expect(third).toEqual(translate(back));
    expect(third.statuses[`AccessPolicy/${LEGACY}`]?.state).toBe("ACCEPTED");
  });
});
