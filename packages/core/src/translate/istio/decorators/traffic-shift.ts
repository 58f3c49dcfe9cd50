import type { TrafficPolicyFeatures } from "../../../api/index";
import { subsetName } from "../../output/naming";
import { hostToken } from "../hosts";
import type { WeightedDestination } from "../types";
import { targetPort } from "./target-port";
import type { RouteDecorator } from "./types";

/**
 * Weights scaled to sum to 100 by largest remainder (ties to the earlier destination). Istio asks
 * that weights sum to 100; users write 1:1 or 3:1 as readily as 50:50.
 */
export function normalizeWeights(weights: readonly number[]): number[] {
  const total = weights.reduce((a, b) => a + b, 0);
  if (total === 100 || total === 0) return [...weights];
  const exact = weights.map((w) => (w * 100) / total);
  const out = exact.map(Math.floor);
  let left = 100 - out.reduce((a, b) => a + b, 0);
  const byRemainder = exact.map((e, i) => ({ i, r: e - Math.floor(e) })).sort((a, b) => b.r - a.r || a.i - b.i);
  for (const { i } of byRemainder) {
    if (left-- <= 0) break;
    out[i] = (out[i] as number) + 1;
  }
  return out;
}

/** Subset label sets a policy's trafficShift routes to, with the target each belongs to. */
export function shiftSubsets(features: TrafficPolicyFeatures): { cluster: string; namespace: string; name: string; labels: Record<string, string> }[] {
  return (features.trafficShift?.destinations ?? []).flatMap(({ kubeService: k }) =>
    k.subset === undefined || Object.keys(k.subset).length === 0 ? [] : [{ cluster: k.cluster, namespace: k.namespace, name: k.name, labels: k.subset }],
  );
}

/** trafficShift → `route[]` with weights; subsets by their generated names (the targets' DestinationRules define them). */
export const trafficShift: RouteDecorator<"trafficShift"> = {
  feature: "trafficShift",
  decorate(features, ctx) {
    const shift = features.trafficShift;
    if (shift === undefined) return undefined;
    const weights = normalizeWeights(shift.destinations.map((d) => d.weight));
    const route: WeightedDestination[] = [];
    for (const [i, { kubeService }] of shift.destinations.entries()) {
      const target = ctx.model.destinationByRef(kubeService);
      if (target === undefined) return undefined; // reported at policy level
      const port = targetPort(target, ctx.destination, kubeService.port, ctx.port, "trafficShift destination");
      if (typeof port === "string") {
        ctx.report(port);
        return undefined;
      }
      const subset = kubeService.subset === undefined || Object.keys(kubeService.subset).length === 0 ? undefined : subsetName(kubeService.subset);
      route.push({ destination: { host: hostToken(target), subset, port: { number: port } }, weight: weights[i] as number });
    }
    return { route };
  },
};
