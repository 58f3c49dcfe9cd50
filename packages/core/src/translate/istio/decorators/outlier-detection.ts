import { istioDuration } from "../durations";
import type { TrafficPolicyDecorator } from "./types";

/**
 * What an omitted field means (docs/translation.md): Gloo Mesh's defaults, which its users expect,
 * rather than Istio's (which eject at most 10 % of hosts).
 */
export const OUTLIER_DEFAULTS = { consecutiveErrors: 5, interval: "10s", baseEjectionTime: "30s", maxEjectionPercent: 100 } as const;

/**
 * outlierDetection → `trafficPolicy.outlierDetection`; `consecutiveErrors` is Istio's
 * `consecutive5xxErrors` (the old name is deprecated). Only the fields the policy sets, so two
 * policies setting different fields do not conflict; the DestinationRule fills the rest with
 * OUTLIER_DEFAULTS once the policies are merged.
 */
export const outlierDetection: TrafficPolicyDecorator<"outlierDetection"> = {
  feature: "outlierDetection",
  decorate(features) {
    const o = features.outlierDetection;
    if (o === undefined) return undefined;
    return {
      outlierDetection: {
        consecutive5xxErrors: o.consecutiveErrors,
        interval: o.interval === undefined ? undefined : istioDuration(o.interval),
        baseEjectionTime: o.baseEjectionTime === undefined ? undefined : istioDuration(o.baseEjectionTime),
        maxEjectionPercent: o.maxEjectionPercent,
      },
    };
  },
};
