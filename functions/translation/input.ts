import type { CertificateResult, Destination, Mesh, StoredResource, Workload } from "@meshplane/core/base";
import type { TranslateInput } from "@meshplane/core/translate";
import type { StoredReport, Store } from "../store/index";

/**
 * Reads everything one tenant's translation needs: registered clusters, what their agents
 * discovered, and the user resources with their current statuses (which carry acceptance order).
 * The translate worker and `POST /v1/plan` both start here, so a plan translates what a job would.
 */
export async function loadTranslateInput(store: Store, tenantId: string): Promise<TranslateInput> {
  const clusters = (await store.clusters.list(tenantId)).map((c) => c.name).sort();
  const [meshes, workloads, destinations, virtualMeshes, trafficPolicies, accessPolicies] = await Promise.all([
    store.discovered.list(tenantId, clusters, "Mesh"),
    store.discovered.list(tenantId, clusters, "Workload"),
    store.discovered.list(tenantId, clusters, "Destination"),
    store.resources.list(tenantId, "VirtualMesh"),
    store.resources.list(tenantId, "TrafficPolicy"),
    store.resources.list(tenantId, "AccessPolicy"),
  ]);
  return {
    tenant: tenantId,
    clusters,
    meshes: meshes as Mesh[],
    workloads: workloads as Workload[],
    destinations: destinations as Destination[],
    virtualMeshes: virtualMeshes as StoredResource<"VirtualMesh">[],
    trafficPolicies: trafficPolicies as StoredResource<"TrafficPolicy">[],
    accessPolicies: accessPolicies as StoredResource<"AccessPolicy">[],
  };
}

/**
 * What the agents last said of their `cacerts`, by cluster (TranslateInput.certificates): the worker
 * and `POST /v1/plan` read it the same way, so a plan predicts trust as a job would see it.
 */
export async function agentCertificates(store: Store, tenantId: string, clusters: readonly string[]): Promise<{ reports: Map<string, StoredReport>; certificates: Record<string, CertificateResult[]> }> {
  const reports = await store.agents.reports(tenantId, clusters);
  return { reports, certificates: Object.fromEntries([...reports].map(([cluster, r]) => [cluster, r.certificates ?? []])) };
}
