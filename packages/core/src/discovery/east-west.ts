import { labelValue } from "../api/common";
import type { EastWestGatewayRef, Mesh } from "../api/discovery";
import { ownValue } from "../own-keys";
import { type ClusterIndex, compareStrings } from "./cluster-index";
import { istioMeshFor } from "./mesh-choice";
import { ISTIO_REV_LABEL } from "./istio-mesh";
import { NETWORK_LABEL } from "./multi-network";

/** The GatewayClass istiod registers for ambient multicluster's east-west gateways (with AMBIENT_ENABLE_MULTI_NETWORK). */
export const EAST_WEST_CLASS = "istio-east-west";
/** meshplane's owner label (docs/resources.md#generated-objects): a Gateway carrying it is not the user's. */
const MANAGED_BY_LABEL = "app.kubernetes.io/managed-by";

/**
 * Returns `meshes` with `spec.istio.ambient.eastWestGateways` set (docs/ambient.md#ambient-multicluster):
 * every Gateway of class `istio-east-west` a user made — one meshplane generated carries its
 * `app.kubernetes.io/managed-by: meshplane` label and is left out — given to the Istio mesh of its
 * `istio.io/rev` (else the default revision's) when that mesh's ztunnel runs, with its
 * `topology.istio.io/network` label, sorted by namespace and name. A mesh with none gets no field.
 */
export function attachEastWestGateways(index: ClusterIndex, meshes: readonly Mesh[]): Mesh[] {
  const byMesh = new Map<string, EastWestGatewayRef[]>();
  for (const gateway of index.objects.gateways ?? []) {
    if (gateway.spec.gatewayClassName !== EAST_WEST_CLASS || ownValue(gateway.metadata.labels, MANAGED_BY_LABEL) === "meshplane") continue;
    const mesh = istioMeshFor(meshes, ownValue(gateway.metadata.labels, ISTIO_REV_LABEL));
    if (mesh?.spec.istio?.ambient === undefined) continue;
    const network = ownValue(gateway.metadata.labels, NETWORK_LABEL);
    const ref: EastWestGatewayRef = {
      name: gateway.metadata.name,
      namespace: gateway.metadata.namespace ?? "",
      ...(network && labelValue.safeParse(network).success ? { network } : {}),
    };
    byMesh.set(mesh.metadata.name, [...(byMesh.get(mesh.metadata.name) ?? []), ref]);
  }
  return meshes.map((mesh) => {
    const found = byMesh.get(mesh.metadata.name);
    const istio = mesh.spec.istio;
    if (istio?.ambient === undefined || found === undefined) return mesh;
    const eastWestGateways = found.toSorted((a, b) => compareStrings(a.namespace, b.namespace) || compareStrings(a.name, b.name));
    return { ...mesh, spec: { ...mesh.spec, istio: { ...istio, ambient: { ...istio.ambient, eastWestGateways } } } };
  });
}
