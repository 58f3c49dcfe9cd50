import { istioDuration } from "../durations";
import type { TrafficPolicyDecorator } from "./types";

/** outlierDetection → `trafficPolicy.outlierDetection`; `consecutiveErrors` is Istio's `consecutive5xxErrors` (the old name is deprecated). */
export const outlierDetection: TrafficPolicyDecorator = {
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
