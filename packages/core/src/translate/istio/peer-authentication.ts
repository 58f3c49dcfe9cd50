import type { Membership } from "../virtual-mesh/membership";
import type { Model } from "../input/model";
import type { ObjectDraft } from "../output/sink";

/**
 * Shared trust (docs/resources.md#virtualmesh): mesh-wide STRICT mTLS, a PeerAuthentication in the
 * Istio root namespace. Named `default` as Istio's docs name the mesh-wide policy, so a conflicting
 * one a user applied shows up as an apply failure instead of silently winning by age.
 */
export function strictPeerAuthentication(member: Membership, model: Model): ObjectDraft {
  return {
    apiVersion: model.istioVersions(member.mesh.spec.cluster).security,
    kind: "PeerAuthentication",
    name: "default",
    namespace: member.mesh.spec.namespace,
    spec: { mtls: { mode: "STRICT" } },
    parents: [{ kind: "VirtualMesh", name: member.virtualMesh.metadata.name }],
  };
}
