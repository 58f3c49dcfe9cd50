import type { Destination, Mesh } from "../../api/index";
import { TranslateError } from "../errors";
import type { FederationPlan } from "../virtual-mesh/federation-plan";
import type { Model } from "../input/model";
import { generatedName } from "../output/naming";

/** Kubernetes' default cluster domain; discovery does not report a different one. */
export const CLUSTER_DOMAIN = "cluster.local";

const TOKEN_PREFIX = "destination:";

/** `<svc>.<ns>.svc.cluster.local`, the name clients in the destination's own cluster use. */
export function localHost(destination: Destination): string {
  return `${destination.spec.name}.${destination.spec.namespace}.svc.${CLUSTER_DOMAIN}`;
}

/**
 * A placeholder for "the host of this destination". Decorators run once per destination and port,
 * but a route is rendered in several clusters, each naming the same service differently (local
 * FQDN or federated host); the renderer swaps tokens for hosts (`resolveHost`).
 */
export function hostToken(destination: Destination): string {
  return `${TOKEN_PREFIX}${destination.metadata.name}`;
}

/**
 * The host clients in mesh `from` use for `target`: the local FQDN in the target's own cluster, the
 * federated host in meshes it is federated to, undefined where it is not reachable.
 */
export function hostFrom(target: Destination, from: Mesh, plan: FederationPlan): string | undefined {
  if (target.spec.cluster === from.spec.cluster) return localHost(target);
  const exported = plan.exports.get(target.metadata.name);
  return exported?.targetNames.has(from.metadata.name) ? exported.host : undefined;
}

/** Swaps a host token for the host seen from `from`. Unreachable targets were rejected earlier, so one here is a bug. */
export function resolveHost(token: string, from: Mesh, model: Model, plan: FederationPlan): string {
  const target = model.destinations.get(token.slice(TOKEN_PREFIX.length));
  const host = target === undefined ? undefined : hostFrom(target, from, plan);
  if (host === undefined) throw new TranslateError(`route host ${token} is not reachable from mesh ${from.metadata.name}`);
  return host;
}

/** A cluster where a destination's VirtualService and DestinationRule are rendered. */
export interface View {
  mesh: Mesh;
  cluster: string;
  /** The host clients there use for the destination. */
  host: string;
  /** Where the objects go: the service's namespace locally, the Istio namespace for federated hosts. */
  namespace: string;
  name: string;
  federated: boolean;
}

/**
 * Where an Istio destination's routing is rendered: its own cluster, then every mesh it is
 * federated to (docs/resources.md#trafficpolicy, "on every cluster whose mesh needs it"). Objects
 * for a federated host live in the remote mesh's Istio namespace, because the service's namespace
 * may not exist there.
 */
export function viewsOf(destination: Destination, model: Model, plan: FederationPlan): View[] {
  const local: View = {
    mesh: model.meshOf(destination),
    cluster: destination.spec.cluster,
    host: localHost(destination),
    namespace: destination.spec.namespace,
    name: generatedName(destination.spec.name),
    federated: false,
  };
  const exported = plan.exports.get(destination.metadata.name);
  if (exported === undefined) return [local];
  const remote = exported.targets.map((mesh) => ({
    mesh,
    cluster: mesh.spec.cluster,
    host: exported.host,
    namespace: mesh.spec.namespace,
    name: exported.objectName,
    federated: true,
  }));
  return [local, ...remote];
}
