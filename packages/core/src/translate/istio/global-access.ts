import type { Membership } from "../virtual-mesh/membership";
import type { Model } from "../input/model";
import { generatedName } from "../output/naming";
import type { ObjectDraft } from "../output/sink";

export const GLOBAL_ACCESS_NAME = "global-access-control";

/**
 * globalAccessPolicy ENABLED (docs/resources.md#virtualmesh): an AuthorizationPolicy with an empty
 * spec in the mesh's Istio (root) namespace — it matches nothing, so every workload of the mesh
 * denies what no other ALLOW policy admits — and an allow-all for each of the mesh's gateways,
 * which take traffic from outside the mesh (ingress) or pass mTLS through untouched (east-west) and
 * would otherwise be cut off.
 */
export function globalAccess(member: Membership, model: Model): ObjectDraft[] {
  const { mesh, virtualMesh } = member;
  const apiVersion = model.istioVersions(mesh.spec.cluster).security;
  const parents = [{ kind: "VirtualMesh" as const, name: virtualMesh.metadata.name }];
  const denyAll: ObjectDraft = { apiVersion, kind: "AuthorizationPolicy", name: GLOBAL_ACCESS_NAME, namespace: mesh.spec.namespace, spec: {}, parents };
  const gateways = (mesh.spec.istio?.gateways ?? []).map(
    (gateway): ObjectDraft => ({
      apiVersion,
      kind: "AuthorizationPolicy",
      name: generatedName(GLOBAL_ACCESS_NAME, "allow", gateway.name),
      namespace: gateway.namespace,
      spec: { selector: { matchLabels: gateway.selector }, action: "ALLOW", rules: [{}] },
      parents,
    }),
  );
  return [denyAll, ...gateways];
}
