import type { Destination } from "../../../api/index";
import { type ServiceKey, refKey } from "../../input/model";
import { targetPort } from "../../istio/decorators/target-port";
import type { RouteContext } from "../../istio/decorators/index";
import type { BackendRef } from "./types";

/**
 * The backendRef for a trafficShift or mirror target, or the error saying why an HTTPRoute cannot
 * name it: a backendRef is a Service of the route's own cluster, and meshplane writes none in
 * another namespace (Istio would need a ReferenceGrant there, which meshplane does not generate).
 * Undefined when the target is unknown (reported at policy level).
 */
export function backendRef(ref: ServiceKey, explicitPort: number | undefined, ctx: RouteContext, what: string): BackendRef | string | undefined {
  const target: Destination | undefined = ctx.model.destinationByRef(ref);
  if (target === undefined) return undefined;
  const own = ctx.destination.spec;
  if (target.spec.cluster !== own.cluster) {
    return `${what} ${refKey(ref)} is in another cluster: an HTTPRoute sends only to Services of its own cluster (Gateway API output does not route across clusters yet)`;
  }
  if (target.spec.namespace !== own.namespace) {
    return `${what} ${refKey(ref)} is in another namespace: an HTTPRoute naming it would need a ReferenceGrant in ${target.spec.namespace}, which meshplane does not generate; use a Service in ${own.namespace}`;
  }
  const port = targetPort(target, ctx.destination, explicitPort, ctx.port, what);
  return typeof port === "string" ? port : { name: target.spec.name, port };
}
