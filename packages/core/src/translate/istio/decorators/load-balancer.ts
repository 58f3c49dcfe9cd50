import type { TrafficPolicyDecorator } from "./types";

/**
 * loadBalancer → `trafficPolicy.loadBalancer` (`simple`, and `localityLbSetting.enabled` for
 * localityFailover). Istio only fails over away from endpoints outlier detection has ejected, so
 * localityFailover without outlierDetection — from this policy or one accepted before it on the
 * destination — would silently do nothing: that is reported instead.
 */
export const loadBalancer: TrafficPolicyDecorator = {
  feature: "loadBalancer",
  decorate(features, ctx) {
    const lb = features.loadBalancer;
    if (lb === undefined) return undefined;
    if (lb.localityFailover === true && features.outlierDetection === undefined && ctx.accepted.outlierDetection === undefined) {
      ctx.report("loadBalancer.localityFailover needs outlierDetection, set by this policy or one accepted before it on this destination: Istio fails over only from endpoints outlier detection ejects");
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
