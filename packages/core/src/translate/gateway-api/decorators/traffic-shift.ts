import { labelsText } from "../../compare";
import { refKey } from "../../input/model";
import { normalizeWeights } from "../../istio/decorators/index";
import { backendRef } from "./backend";
import type { BackendRef, RuleDecorator } from "./types";

/**
 * trafficShift → weighted `backendRefs` (weights scaled to sum to 100, as for Istio). A subset has
 * no Gateway API form — a backendRef is a whole Service — so a shift to one is an error saying to
 * create a Service selecting the subset's pods and shift to it (docs/ambient.md#trafficpolicy-as-httproute).
 */
export const trafficShift: RuleDecorator<"trafficShift"> = {
  feature: "trafficShift",
  decorate(features, ctx) {
    const shift = features.trafficShift;
    if (shift === undefined) return undefined;
    const weights = normalizeWeights(shift.destinations.map((d) => d.weight));
    const backendRefs: BackendRef[] = [];
    let failed = false;
    for (const [i, { kubeService }] of shift.destinations.entries()) {
      if (kubeService.subset !== undefined && Object.keys(kubeService.subset).length > 0) {
        ctx.report(
          `trafficShift destination ${refKey(kubeService)} names subset ${labelsText(kubeService.subset)}, which Gateway API cannot route to (a backendRef is a whole Service): create a Service selecting the pods of ${kubeService.name} labelled ${labelsText(kubeService.subset)} and shift to it`,
        );
        failed = true;
        continue;
      }
      const ref = backendRef(kubeService, kubeService.port, ctx, "trafficShift destination");
      if (typeof ref === "string") ctx.report(ref);
      if (ref === undefined || typeof ref === "string") failed = true;
      else backendRefs.push({ ...ref, weight: weights[i] as number });
    }
    return failed ? undefined : { backendRefs };
  },
};
