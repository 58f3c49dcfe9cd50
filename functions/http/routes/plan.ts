import { type ResourceStatus, type StoredResource, type UserKind, canonicalJson, nextStoredVersion, objectKeyOf } from "@meshplane/core/base";
import type { KubeObject, TranslateInput, VirtualMeshTrust } from "@meshplane/core/translate";
import { z } from "zod";
import { caBelongsTo, trustView } from "../../trust/ca-record";
import { agentCertificates, loadTranslateInput } from "../../translation/input";
import type { CaRecord, DocumentWrite, Store } from "../../store/index";
import { DOCUMENT_BODY_TYPES, type Route, route } from "../route";
import { applyBody, applyBodyDoc } from "../schemas";
import { validateDocuments } from "./apply";
import { storedPayload } from "./snapshots";

export interface PlanDeps {
  store: Store;
  now: () => Date;
}

/** Where each user kind sits in a TranslateInput. */
const LISTS = { VirtualMesh: "virtualMeshes", TrafficPolicy: "trafficPolicies", AccessPolicy: "accessPolicies" } as const satisfies Record<UserKind, keyof TranslateInput>;

/** What only a real write knows (the tenant's next revision, a new resource's uid); translation reads neither. */
const PLANNED = { resourceVersion: "planned", uid: "planned" };

/**
 * The tenant's input with `writes` laid over it exactly as storing them would leave it: each
 * resource becomes nextStoredVersion of what is stored — the function the write path uses — and a
 * document identical to what is stored leaves it untouched. Pure; `input` is not changed.
 */
export function withPlannedWrites(input: TranslateInput, writes: readonly DocumentWrite[], now: string): TranslateInput {
  const out: TranslateInput = { ...input, virtualMeshes: [...input.virtualMeshes], trafficPolicies: [...input.trafficPolicies], accessPolicies: [...input.accessPolicies] };
  for (const { doc } of writes) {
    const list = out[LISTS[doc.kind]] as StoredResource[];
    const i = list.findIndex((r) => r.metadata.name === doc.metadata.name);
    const next = nextStoredVersion(i >= 0 ? list[i] : undefined, doc, { now, ...PLANNED });
    if (next === undefined) continue;
    if (i >= 0) list[i] = next;
    else list.push(next);
  }
  return out;
}

/** Tenants whose loaded input an API instance keeps for plans. */
const CACHED_TENANTS = 16;

/**
 * The stored input of recently planned tenants, by tenant revision: a plan of a tenant that has not
 * changed since the last one reads one item instead of the whole tenant, so a plan's cost is
 * translation alone (its budget bounds how often). Shared by reference — translation does not change
 * its input, and `withPlannedWrites` copies what it changes.
 */
export class PlanInputCache {
  private readonly entries = new Map<string, { revision: number; input: Promise<TranslateInput> }>();

  constructor(private readonly store: Store) {}

  async get(tenantId: string): Promise<TranslateInput> {
    const { revision } = await this.store.tenants.get(tenantId);
    const hit = this.entries.get(tenantId);
    if (hit?.revision === revision) return hit.input;
    const entry = { revision, input: loadTranslateInput(this.store, tenantId) };
    this.entries.delete(tenantId);
    this.entries.set(tenantId, entry);
    if (this.entries.size > CACHED_TENANTS) this.entries.delete(this.entries.keys().next().value as string);
    entry.input.catch(() => {
      if (this.entries.get(tenantId) === entry) this.entries.delete(tenantId);
    });
    return entry.input;
  }
}

/** The tenant's input as it would be after storing `writes`; nothing is stored. */
export async function plannedInput(cache: PlanInputCache, tenantId: string, writes: readonly DocumentWrite[], now: string): Promise<TranslateInput> {
  return withPlannedWrites(await cache.get(tenantId), writes, now);
}

const planResult = z.object({
  clusters: z.record(
    z.string(),
    z.object({
      added: z.array(z.unknown()),
      changed: z.array(z.unknown()),
      previous: z.array(z.unknown()).meta({ description: "each changed object as the cluster's latest snapshot has it, in the order of `changed` (for a diff)" }),
      removed: z.array(z.object({ apiVersion: z.string(), kind: z.string(), namespace: z.string().optional(), name: z.string() })),
    }),
  ),
  statuses: z.record(z.string(), z.unknown()),
});

/**
 * The CAs a job would translate with for `virtualMeshes`: each existing one that the VirtualMesh of
 * its name would keep (same uid). One the job would make or replace first is left
 * out, and the plan predicts its meshes' trust as pending, as the job's first translation would.
 */
function plannedTrust(virtualMeshes: readonly StoredResource<"VirtualMesh">[], records: readonly CaRecord[]): Record<string, VirtualMeshTrust> {
  const byName = new Map(virtualMeshes.map((vm) => [vm.metadata.name, vm]));
  return Object.fromEntries(
    records.flatMap((r) => {
      const vm = byName.get(r.virtualMesh);
      return vm?.spec.mtlsConfig?.shared !== undefined && caBelongsTo(r, vm) ? [[r.virtualMesh, trustView(r)]] : [];
    }),
  );
}

/** `POST /v1/plan`: a dry run of `POST /v1/apply` — what each cluster and each status would become. */
export function planRoutes(deps: PlanDeps): Route[] {
  const { store } = deps;
  const cache = new PlanInputCache(store);
  return [
    route({
      method: "post", path: "/v1/plan", tag: "apply", access: "viewer",
      summary: "What each cluster's snapshot and each policy's status would become with these documents; nothing is stored",
      body: applyBody,
      bodyDoc: applyBodyDoc,
      bodyTypes: DOCUMENT_BODY_TYPES,
      responses: { 200: { description: "per-cluster changes and statuses", schema: planResult } },
      handler: async (c, { body }) => {
        const tenantId = c.get("tenantId");
        const planned = await plannedInput(cache, tenantId, validateDocuments(body.documents), deps.now().toISOString());
        // The CAs as they are and what agents hold, as a job reads them: without them a plan would
        // predict shared trust as not yet issued (and its PeerAuthentications removed).
        const [cas, { certificates }] = await Promise.all([store.cas.list(tenantId), agentCertificates(store, tenantId, planned.clusters)]);
        const input: TranslateInput = { ...planned, trust: plannedTrust(planned.virtualMeshes, cas), certificates };
        // The translators load with the first plan: no other request of the API runs them.
        const { translate } = await import("@meshplane/core/translate");
        const output = translate(input);
        const heads = await store.snapshots.heads(tenantId, input.clusters);
        const clusters: z.infer<typeof planResult>["clusters"] = {};
        for (const [cluster, out] of Object.entries(output.clusters)) {
          const head = heads.get(cluster)?.snapshot;
          const before = new Map((head ? (await storedPayload(store, tenantId, cluster, head)).objects : []).map((o) => [objectKeyOf(o as KubeObject), o as KubeObject]));
          const after = new Map(out.objects.map((o) => [objectKeyOf(o), o]));
          const changed = [...after].filter(([k, o]) => before.has(k) && canonicalJson(before.get(k)) !== canonicalJson(o));
          clusters[cluster] = {
            added: [...after].filter(([k]) => !before.has(k)).map(([, o]) => o),
            changed: changed.map(([, o]) => o),
            previous: changed.map(([k]) => before.get(k)),
            removed: [...before].filter(([k]) => !after.has(k)).map(([, o]) => ({ apiVersion: o.apiVersion, kind: o.kind, ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}), name: o.metadata.name })),
          };
        }
        const statuses: Record<string, ResourceStatus> = output.statuses;
        return c.json({ clusters, statuses });
      },
    }),
  ];
}
