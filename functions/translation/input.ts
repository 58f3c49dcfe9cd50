/**
 * One tenant's translation input, assembled in one way for the translate job and for `POST /v1/plan`
 * alike, so a plan translates what a job would: the stored part (clusters, what their agents
 * discovered, the user resources with their statuses), then what the agents hold (their `cacerts`)
 * and the trust of the VirtualMeshes' CAs. Loaded by the API too: nothing here makes or opens a key.
 */
import { gunzipSync } from "node:zlib";
import type { CertificateResult, Destination, Mesh, SnapshotPayload, StoredResource, UserKind, Workload } from "@meshplane/core/base";
import type { TranslateInput } from "@meshplane/core/translate";
import { trustInput } from "../trust/ca-record";
import type { CaRecord, Cluster, SnapshotHead, StoredReport, Store } from "../store/index";

/** Where each user kind sits in a TranslateInput. */
export const USER_LISTS = { VirtualMesh: "virtualMeshes", TrafficPolicy: "trafficPolicies", AccessPolicy: "accessPolicies" } as const satisfies Record<
  UserKind,
  keyof TranslateInput
>;

/**
 * The clusters part of an input from the tenant's cluster records: their names, sorted, and the
 * grants tenant admins set (docs/gitops.md#grants), only when one did.
 */
export function clustersInput(records: readonly Pick<Cluster, "name" | "authoring">[]): Pick<TranslateInput, "clusters" | "grants"> {
  const clusters = records.map((c) => c.name).sort();
  const granted = records
    .filter((c) => c.authoring !== undefined)
    .map((c): [string, NonNullable<Cluster["authoring"]>] => [c.name, c.authoring as NonNullable<Cluster["authoring"]>]);
  return { clusters, ...(granted.length > 0 ? { grants: Object.fromEntries(granted) } : {}) };
}

/**
 * Reads the stored part of one tenant's input: registered clusters and their grants, what their
 * agents discovered, and the user resources with their current statuses (which carry acceptance
 * order). Without `certificates` and `trust`, which `completeInput` adds.
 */
export async function loadTranslateInput(store: Store, tenantId: string): Promise<TranslateInput> {
  const { clusters, grants } = clustersInput(await store.clusters.list(tenantId));
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
    ...(grants ? { grants } : {}),
    meshes: meshes as Mesh[],
    workloads: workloads as Workload[],
    destinations: destinations as Destination[],
    virtualMeshes: virtualMeshes as StoredResource<"VirtualMesh">[],
    trafficPolicies: trafficPolicies as StoredResource<"TrafficPolicy">[],
    accessPolicies: accessPolicies as StoredResource<"AccessPolicy">[],
  };
}

/** An input ready to translate, with what it was completed from. */
export interface CompletedInput {
  input: TranslateInput;
  /** The agents' last reports, by cluster (their certificate state is `input.certificates`). */
  reports: Map<string, StoredReport>;
  /** The CAs `input.trust` was read from, by VirtualMesh name. */
  cas: Map<string, CaRecord>;
}

/**
 * Completes the stored part of a tenant's input (`stored`, not changed) with what the agents last
 * said of their `cacerts`, by cluster (TranslateInput.certificates), and the trust of the CAs that
 * `authorities` gives for its VirtualMeshes (TranslateInput.trust): the job's makes and moves CAs
 * (trust/rotation.ts), the plan's only reads them (`keptAuthorities`). Without the CAs and what agents
 * hold, a plan would predict shared trust as not yet issued (and its PeerAuthentications removed).
 */
export async function completeInput(
  store: Store,
  stored: TranslateInput,
  authorities: (virtualMeshes: readonly StoredResource<"VirtualMesh">[]) => Promise<Map<string, CaRecord>>,
): Promise<CompletedInput> {
  const [reports, cas] = await Promise.all([store.agents.reports(stored.tenant, stored.clusters), authorities(stored.virtualMeshes)]);
  const certificates: Record<string, CertificateResult[]> = Object.fromEntries([...reports].map(([cluster, r]) => [cluster, r.certificates ?? []]));
  return { input: { ...stored, certificates, trust: trustInput(cas) }, reports, cas };
}

/** The payload of a snapshot the job published, read back from its stored (gzipped JWS) body. */
export async function storedPayload(store: Store, tenantId: string, cluster: string, head: SnapshotHead): Promise<SnapshotPayload> {
  const jws = gunzipSync(await store.snapshots.body(tenantId, cluster, head)).toString();
  return JSON.parse(Buffer.from(jws.split(".")[1] as string, "base64url").toString()) as SnapshotPayload;
}
