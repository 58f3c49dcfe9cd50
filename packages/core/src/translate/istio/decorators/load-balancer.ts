import type { TrafficPolicyDecorator } from "./types";

/**
 * loadBalancer → `trafficPolicy.loadBalancer` (`simple`, and `localityLbSetting.enabled` for
 * localityFailover). Istio only fails over away from endpoints outlier detection has ejected, so
 * localityFailover without outlierDetection would silently do nothing: that is reported instead.
 * The outlierDetection must be in the same policy (repeating another policy's values is not a
 * conflict): relying on another policy would make this one break when that one is removed.
 */
export const loadBalancer: TrafficPolicyDecorator<"loadBalancer"> = {
  feature: "loadBalancer",
  decorate(features, ctx) {
    const lb = features.loadBalancer;
    if (lb === undefined) return undefined;
    if (lb.localityFailover === true && features.outlierDetection === undefined) {
      ctx.report(
        "loadBalancer.localityFailover needs policy.outlierDetection in the same policy: Istio moves traffic to another locality only when outlier detection ejects the local endpoints; add outlierDetection (its defaults apply to fields you omit)",
      );
      return undefined;
    }
    return {
      loadBalancer: {
        simple: lb.simple,
        localityLbSetting: lb.localityFailover === undefined ? undefined : { enabled: lb.localityFailover },
      },
    };
  },
};
