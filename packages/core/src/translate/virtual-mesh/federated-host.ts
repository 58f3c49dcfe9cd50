import type { VirtualMeshSpec } from "../../api/index";

/** Federated hosts end in this when the VirtualMesh sets no hostnameSuffix (Gloo Mesh's default too). */
export const DEFAULT_HOSTNAME_SUFFIX = "global";

/** The name other meshes of a VirtualMesh call an exported service by: `<svc>.<ns>.svc.<cluster>.<suffix>`. */
export function federatedHost(
  service: { name: string; namespace: string; cluster: string },
  virtualMesh: { spec: Pick<VirtualMeshSpec, "federation"> },
): string {
  return `${service.name}.${service.namespace}.svc.${service.cluster}.${virtualMesh.spec.federation?.hostnameSuffix ?? DEFAULT_HOSTNAME_SUFFIX}`;
}
