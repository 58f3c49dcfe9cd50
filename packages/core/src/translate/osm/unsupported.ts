import type { Destination, TrafficPolicyFeatures } from "../../api/index";
import type { TrafficPolicy } from "../istio/destination-state";
import type { Model } from "../input/model";

/** How OSM takes a feature: honoured (by the TrafficSplit), or refused with an error naming it in these words. */
export type OsmSupport = "supported" | { readonly unsupported: string };

/**
 * Every TrafficPolicy feature, decided for OSM. Typed over all of them, so a feature added to the
 * schema does not compile until it is either honoured here or given the words of its error
 * (docs/resources.md#trafficpolicy: never silently ignored). trafficShift is honoured within limits
 * shiftErrors reports.
 */
export const OSM_FEATURES: { readonly [F in keyof TrafficPolicyFeatures]-?: OsmSupport } = {
  trafficShift: "supported",
  faultInjection: { unsupported: "fault injection" },
  requestTimeout: { unsupported: "request timeout" },
  retries: { unsupported: "retries" },
  corsPolicy: { unsupported: "CORS" },
  mirror: { unsupported: "mirror" },
  headerManipulation: { unsupported: "header manipulation" },
  outlierDetection: { unsupported: "outlier detection" },
  connectionPool: { unsupported: "connection pool" },
  loadBalancer: { unsupported: "load balancer" },
  mtls: { unsupported: "mtls" },
};

function shiftErrors(features: TrafficPolicyFeatures, destination: Destination, model: Model): string[] {
  const errors: string[] = [];
  for (const { kubeService: k } of features.trafficShift?.destinations ?? []) {
    const ref = `${k.cluster}/${k.namespace}/${k.name}`;
    if (k.cluster !== destination.spec.cluster || k.namespace !== destination.spec.namespace) {
      errors.push(`OSM (SMI TrafficSplit) cannot shift to ${ref}: backends must be in the destination's cluster and namespace`);
    }
    if (k.subset !== undefined && Object.keys(k.subset).length > 0) errors.push(`OSM (SMI TrafficSplit) cannot express trafficShift subsets (${ref})`);
    if (k.port !== undefined) errors.push(`OSM (SMI TrafficSplit) cannot express trafficShift ports (${ref})`);
    const target = model.destinationByRef(k);
    if (target !== undefined && model.meshOf(target).spec.type !== "osm") errors.push(`trafficShift destination ${ref} is not in an OSM mesh`);
  }
  return errors;
}

/**
 * Every part of a TrafficPolicy an OSM destination cannot honour, one error per feature
 * (docs/resources.md#trafficpolicy: never silently ignored): features SMI has no field for, request
 * matchers and source selectors (SMI v1alpha2 splits apply to all traffic), and trafficShift
 * subsets, ports or backends outside the destination's cluster and namespace.
 */
export function osmTrafficErrors(spec: TrafficPolicy["spec"], destination: Destination, model: Model): string[] {
  const errors: string[] = [];
  for (const [feature, support] of Object.entries(OSM_FEATURES)) {
    if (support !== "supported" && spec.policy[feature as keyof TrafficPolicyFeatures] !== undefined) {
      errors.push(`OSM (SMI) cannot express ${support.unsupported} (${feature})`);
    }
  }
  if ((spec.httpRequestMatchers ?? []).length > 0) errors.push("OSM (SMI TrafficSplit) cannot express request matchers (httpRequestMatchers)");
  if ((spec.sourceSelector ?? []).length > 0) errors.push("OSM (SMI TrafficSplit) cannot express source selectors (sourceSelector)");
  errors.push(...shiftErrors(spec.policy, destination, model));
  return errors;
}
