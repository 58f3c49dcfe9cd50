/**
 * `POST /v1/plan`: a dry run of `POST /v1/apply` — what each cluster's snapshot and each policy's
 * status would become with these documents and, for a migration, with another output API for some
 * meshes (docs/api.md#plan-a-change). The input is the one a job would assemble (input.ts) with the
 * writes laid over it as storing them would leave them; nothing is stored, no CA is made, no job is
 * enqueued.
 */
import {
  type FieldError,
  type ResourceStatus,
  type StoredResource,
  ValidationError,
  canonicalJson,
  nextStoredVersion,
  objectKeyOf,
  resourceKeyOf,
} from "@meshplane/core/base";
import type { KubeObject, PlannedRouting, RoutingChange, TranslateInput } from "@meshplane/core/translate";
import { keptAuthorities } from "../trust/ca-record";
import type { DocumentWrite, Store } from "../store/index";
import { USER_LISTS, completeInput, loadTranslateInput, storedPayload } from "./input";

/** What only a real write knows (the tenant's next revision, a new resource's uid); translation reads neither. */
const PLANNED = { resourceVersion: "planned", uid: "planned" };

/**
 * The tenant's input with `writes` laid over it exactly as storing them would leave it: each
 * resource becomes nextStoredVersion of what is stored — the function the write path uses — and a
 * document identical to what is stored leaves it untouched. Pure; `input` is not changed.
 */
export function withPlannedWrites(input: TranslateInput, writes: readonly DocumentWrite[], now: string): TranslateInput {
  const out: TranslateInput = {
    ...input,
    virtualMeshes: [...input.virtualMeshes],
    trafficPolicies: [...input.trafficPolicies],
    accessPolicies: [...input.accessPolicies],
  };
  for (const { doc } of writes) {
    const list = out[USER_LISTS[doc.kind]] as StoredResource[];
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

/** The stored part of the tenant's input as it would be after storing `writes`; nothing is stored. */
export async function plannedInput(cache: PlanInputCache, tenantId: string, writes: readonly DocumentWrite[], now: string): Promise<TranslateInput> {
  return withPlannedWrites(await cache.get(tenantId), writes, now);
}

/** One cluster's change: objects added and changed (each with its previous version, for a diff), and those removed. */
export interface ClusterPlan {
  added: KubeObject[];
  changed: KubeObject[];
  /** Each changed object as the cluster's latest snapshot has it, in the order of `changed`. */
  previous: KubeObject[];
  removed: { apiVersion: string; kind: string; namespace?: string; name: string }[];
}

export interface Plan {
  clusters: Record<string, ClusterPlan>;
  statuses: Record<string, ResourceStatus>;
  /** Each stored resource's status where the predicted one says otherwise (state or reasons): the "before" of `statuses`. */
  previousStatuses: Record<string, ResourceStatus>;
  /** Per mesh the request's `routing` names, the output API it has and would have; only when the request has `routing`. */
  routing?: Record<string, RoutingChange>;
}

export interface PlanDeps {
  store: Store;
  cache: PlanInputCache;
  now: () => Date;
}

/** What `after` changes of `before`, by object key. */
function diff(before: ReadonlyMap<string, KubeObject>, after: ReadonlyMap<string, KubeObject>): ClusterPlan {
  const changed = [...after].filter(([k, o]) => before.has(k) && canonicalJson(before.get(k)) !== canonicalJson(o));
  return {
    added: [...after].filter(([k]) => !before.has(k)).map(([, o]) => o),
    changed: changed.map(([, o]) => o),
    previous: changed.map(([k]) => before.get(k) as KubeObject),
    removed: [...before]
      .filter(([k]) => !after.has(k))
      .map(([, o]) => ({
        apiVersion: o.apiVersion,
        kind: o.kind,
        ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}),
        name: o.metadata.name,
      })),
  };
}

/**
 * What translation said in a stored status: without what the agents' reports add — `clusters`, and
 * the FAILED a cluster's refusal makes of ACCEPTED (withClusterStatus, statuses.ts); translation's
 * own FAILED is a destination's or mesh's — nor the generation it was made for.
 */
function translated({ clusters: _c, observedGeneration: _g, ...rest }: ResourceStatus): string {
  const own = [...Object.values(rest.destinations ?? {}), ...Object.values(rest.meshes ?? {})].some((e) => e.state === "FAILED");
  return canonicalJson(rest.state === "FAILED" && !own ? { ...rest, state: "ACCEPTED" } : rest);
}

/** The stored statuses of `input`'s resources whose translation `statuses` changes (as stored, with what agents said). */
function previousStatuses(input: TranslateInput, statuses: Readonly<Record<string, ResourceStatus>>): Record<string, ResourceStatus> {
  const out: Record<string, ResourceStatus> = {};
  for (const r of [...input.virtualMeshes, ...input.trafficPolicies, ...input.accessPolicies] as StoredResource[]) {
    const key = resourceKeyOf(r);
    const after = statuses[key];
    if (r.status !== undefined && after !== undefined && translated(r.status) !== translated(after)) out[key] = r.status;
  }
  return out;
}

/**
 * The field errors of a plan's `routing`: a name no Istio mesh of the tenant's registered clusters has
 * (`changes` leaves those out). An output API a mesh's Istio cannot serve is no field error: the
 * plan says it as translation does (INVALID).
 */
function routingErrors(input: TranslateInput, routing: PlannedRouting, changes: Record<string, RoutingChange>): FieldError[] {
  return Object.keys(routing)
    .filter((name) => !Object.hasOwn(changes, name))
    .map((name) => {
      const mesh = input.meshes.find((m) => m.metadata.name === name);
      const message =
        mesh !== undefined && mesh.spec.type !== "istio"
          ? `mesh ${name} is an ${mesh.spec.type} mesh; only Istio meshes have an output API`
          : `no Istio mesh of a registered cluster is named ${name} (GET /v1/meshes lists them)`;
      return { path: `routing.${name}`, message };
    });
}

/**
 * Plans `writes` (validated documents) for a tenant, with `routing` (a mesh name → the output API to
 * plan it with, over its VirtualMesh's choice): translates the input a job would assemble after
 * storing them — with the CAs as they are and what agents hold — and compares each cluster's output
 * with its latest published snapshot, and each resource's predicted status with its stored one.
 * Nothing is stored or enqueued. A `routing` name that is not an Istio mesh of the tenant throws
 * ValidationError naming `routing.<name>`.
 */
export async function planWrites(deps: PlanDeps, tenantId: string, writes: readonly DocumentWrite[], routing: PlannedRouting = {}): Promise<Plan> {
  const { store } = deps;
  const stored = await deps.cache.get(tenantId);
  const planned = withPlannedWrites(stored, writes, deps.now().toISOString());
  const { input } = await completeInput(store, planned, async (virtualMeshes) => keptAuthorities(virtualMeshes, await store.cas.list(tenantId)));
  // The translators load with the first plan: no other request of the API runs them.
  const { translate, routingChanges, withPlannedRouting } = await import("@meshplane/core/translate");
  const changes = routingChanges(input, routing);
  const errors = routingErrors(input, routing, changes);
  if (errors.length > 0) throw new ValidationError(`${errors.length} problem(s) in routing; nothing was planned`, errors);
  const output = translate(withPlannedRouting(input, routing));
  const heads = await store.snapshots.heads(tenantId, input.clusters);
  const clusters: Record<string, ClusterPlan> = {};
  for (const [cluster, out] of Object.entries(output.clusters)) {
    const head = heads.get(cluster)?.snapshot;
    const before = new Map(
      (head ? (await storedPayload(store, tenantId, cluster, head)).objects : []).map((o) => [objectKeyOf(o as KubeObject), o as KubeObject]),
    );
    clusters[cluster] = diff(before, new Map(out.objects.map((o) => [objectKeyOf(o), o])));
  }
  return {
    clusters,
    statuses: output.statuses,
    previousStatuses: previousStatuses(stored, output.statuses),
    ...(Object.keys(routing).length > 0 ? { routing: changes } : {}),
  };
}
