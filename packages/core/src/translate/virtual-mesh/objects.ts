import { eastWestGatewayObjects } from "./ambient-gateways";
import { certificateDirective } from "./certificates";
import { DEFAULT_HOSTNAME_SUFFIX, type FederatedExport, type FederationPlan } from "./federation-plan";
import { federationDestinationRule } from "../istio/destination-rule";
import { eastWestGateway, gatewayServiceEntry, remoteServiceEntries } from "../istio/federation";
import { globalAccess } from "../istio/global-access";
import { strictPeerAuthentication } from "../istio/peer-authentication";
import type { Membership } from "./membership";
import type { Model } from "../input/model";
import type { DraftSink } from "../output/sink";
import { trustOf } from "./trust";

/**
 * Per member mesh: with shared trust, once the VirtualMesh's CA can issue, a certificate directive
 * and STRICT mTLS; deny-by-default with global access.
 */
function memberObjects(member: Membership, model: Model, sink: DraftSink, secrets: Set<string>): void {
  const { mesh, virtualMesh } = member;
  const cluster = mesh.spec.cluster;
  const directive = certificateDirective(member, trustOf(virtualMesh, model.trust));
  if (directive !== undefined) {
    sink.add(cluster, strictPeerAuthentication(member, model));
    // Two istiod revisions in one namespace share the `cacerts` secret: one directive writes it.
    const secret = `${cluster}/${directive.secretNamespace}`;
    if (!secrets.has(secret)) sink.addCertificate(cluster, directive);
    secrets.add(secret);
  }
  if (virtualMesh.spec.globalAccessPolicy === "ENABLED") for (const draft of globalAccess(member, model)) sink.add(cluster, draft);
}

/**
 * The objects VirtualMeshes produce besides routing (docs/resources.md#virtualmesh) that do not
 * belong to one federated destination: per member mesh, trust and access defaults; per receiving
 * mesh, the DestinationRule for all federated hosts; per exporting mesh, the AUTO_PASSTHROUGH
 * Gateway on each of its east-west gateways; per member federating the ambient way, its east-west
 * gateway (ambient-gateways.ts). Each federated destination's own objects come from
 * `exportObjects`; per-host VirtualServices and DestinationRules come with the destination's
 * routing (traffic-policy.ts).
 */
export function sharedVirtualMeshObjects(model: Model, plan: FederationPlan, sink: DraftSink): void {
  const secrets = new Set<string>();
  for (const member of plan.members.values()) memberObjects(member, model, sink, secrets);
  eastWestGatewayObjects(plan.ambient.eastWestGateways, sink);
  const exporting = new Set<string>();
  const receiving = new Set<string>();
  for (const exported of plan.exports.values()) {
    for (const mesh of exported.targets) {
      if (receiving.has(mesh.metadata.name)) continue;
      receiving.add(mesh.metadata.name);
      const suffix = exported.virtualMesh.spec.federation?.hostnameSuffix ?? DEFAULT_HOSTNAME_SUFFIX;
      sink.add(mesh.spec.cluster, federationDestinationRule(mesh, exported.virtualMesh, suffix, model));
    }
    const member = plan.members.get(exported.destination.spec.mesh) as Membership;
    if (exporting.has(member.mesh.metadata.name)) continue;
    exporting.add(member.mesh.metadata.name);
    for (const gateway of exported.gateways) sink.add(member.mesh.spec.cluster, eastWestGateway(member, gateway, model));
  }
}

/**
 * One federated destination's objects (docs/resources.md#virtualmesh): the ServiceEntry for its
 * host in every mesh it is federated to, and the local one beside its own east-west gateway.
 */
export function exportObjects(exported: FederatedExport, model: Model, plan: FederationPlan, sink: DraftSink): void {
  remoteServiceEntries(exported, model, (cluster, draft) => sink.add(cluster, draft));
  const member = plan.members.get(exported.destination.spec.mesh) as Membership;
  const local = gatewayServiceEntry(exported, model, member.mesh);
  if (local !== undefined) sink.add(exported.destination.spec.cluster, local);
}
