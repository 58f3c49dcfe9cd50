/**
 * The translate worker's warm tenants: the translation input of the last tenants it translated, kept
 * between jobs (in a Lambda instance, or the local process), brought up to date from the change log
 * (store/changes.ts) instead of read again whole. A one-policy change then reads the log entry and
 * that policy; a discovery report reads that cluster's discovered objects.
 *
 * Correct either way: a tenant not held, held for too long, created again, or with a change the log
 * does not name (an unlogged change) is loaded whole, exactly as `POST /v1/plan` loads it. The log
 * is read from CHANGE_LOG_SLACK revisions back (changes.ts says why); an entry is applied once.
 */
import type { Destination, Mesh, ResourceStatus, StoredResource, UserKind, Workload } from "@meshplane/core/base";
import { type TranslateInput, Translator } from "@meshplane/core/translate";
import { USER_LISTS, clustersInput, loadTranslateInput } from "./input";
import { CHANGE_LOG_SLACK, type Store, type Tenant } from "../store/index";

export interface LoadStats {
  mode: "full" | "changes";
  /** Why a full load (cold, stale, unlogged) — absent after a load from changes. */
  reason?: string;
  /** Items read from the store for the input (log entries included). */
  itemsRead: number;
  /** Items the input holds. */
  itemsHeld: number;
}

interface Held {
  /** The tenant's creation time: a tenant deleted and created again under the same id is another. */
  incarnation: string;
  revision: number;
  /** The tenant's count of unlogged changes when loaded whole: any move means a full load. */
  unlogged: number;
  input: TranslateInput;
  loadedAt: number;
  /** Change-log entries already applied (ids), those that may still be in the read window. */
  applied: Map<string, number>;
  /** The tenant's translation kept warm (core Translator), for the most recently used tenants only. */
  translator?: Translator;
}

export interface WarmOptions {
  /** Tenants held at once; the least recently used is dropped. */
  maxTenants: number;
  /** A held input older than this is loaded whole again: a safety net, not a correctness need. */
  maxAgeMs: number;
  /**
   * Tenants whose translation is kept too (the most recently used): a large tenant's translation holds
   * its output, hundreds of MiB, so fewer of these are kept than inputs.
   */
  maxTranslators: number;
  now: () => number;
}

export const DEFAULT_WARM: WarmOptions = { maxTenants: 8, maxAgeMs: 15 * 60_000, maxTranslators: 2, now: () => Date.now() };

const itemsOf = (input: TranslateInput): number =>
  input.clusters.length +
  input.meshes.length +
  input.workloads.length +
  input.destinations.length +
  input.virtualMeshes.length +
  input.trafficPolicies.length +
  input.accessPolicies.length;

export class WarmInputs {
  private readonly held = new Map<string, Held>();

  constructor(
    private readonly store: Store,
    private readonly options: WarmOptions = DEFAULT_WARM,
  ) {}

  /**
   * The input of `tenant` (read strongly just before, at its revision) — a fresh object each time, so
   * a job may add certificates and trust to it. The lists inside are shared: never mutate them.
   */
  async load(tenant: Tenant): Promise<{ input: TranslateInput; stats: LoadStats; translator: Translator }> {
    const held = this.held.get(tenant.id);
    const from = held ? held.revision - CHANGE_LOG_SLACK + 1 : 0;
    const reason =
      held === undefined
        ? "cold"
        : held.incarnation !== tenant.createdAt
          ? "the tenant was created again"
          : this.options.now() - held.loadedAt > this.options.maxAgeMs
            ? "held too long"
            : held.revision > tenant.revision
              ? "ahead of the store"
              : (tenant.unloggedChanges ?? 0) !== held.unlogged
                ? "a change without a change-log entry"
                : undefined;
    if (reason !== undefined || held === undefined) return this.full(tenant, reason ?? "cold");
    const entries = await this.store.changes.since(tenant.id, from);
    const fresh = entries.filter((e) => !held.applied.has(e.id));
    const input = { ...held.input };
    let itemsRead = entries.length;
    const resources = new Map<string, { kind: UserKind; name: string }>();
    const discovery = new Set<string>();
    let clustersChanged = false;
    for (const change of fresh.flatMap((e) => e.changes)) {
      if (change.type === "resource") resources.set(`${change.kind}/${change.name}`, { kind: change.kind, name: change.name });
      else if (change.type === "discovery") discovery.add(change.cluster);
      else if (change.type === "cluster") {
        clustersChanged = true;
        discovery.add(change.name);
      }
    }
    if (clustersChanged) {
      // A cluster registered, deregistered, or its grant set (docs/gitops.md#grants).
      const { clusters, grants } = clustersInput(await this.store.clusters.list(tenant.id));
      input.clusters = clusters;
      if (grants) input.grants = grants;
      else delete input.grants;
      itemsRead += clusters.length;
    }
    const registered = new Set(input.clusters);
    if (discovery.size > 0) itemsRead += await this.reloadDiscovery(tenant.id, input, [...discovery], registered);
    if (resources.size > 0) {
      const refs = [...resources.values()];
      const stored = await this.store.resources.getMany(tenant.id, refs);
      itemsRead += stored.filter((r) => r !== undefined).length;
      refs.forEach((ref, i) => replaceResource(input, ref, stored[i]));
    }
    // Entries that may still show up in a later window are remembered, so they are applied once.
    const applied = new Map([...held.applied, ...fresh.map((e): [string, number] => [e.id, e.revision])]);
    const oldest = tenant.revision - CHANGE_LOG_SLACK + 1;
    for (const [id, revision] of applied) if (revision < oldest) applied.delete(id);
    const translator = held.translator ?? new Translator();
    this.keep(tenant.id, { ...held, revision: tenant.revision, input, applied, translator });
    return { input: { ...input }, stats: { mode: "changes", itemsRead, itemsHeld: itemsOf(input) }, translator };
  }

  /** What the job wrote: the status the store now holds for a resource, so the next job starts from it. */
  statusWritten(tenantId: string, kind: UserKind, name: string, status: ResourceStatus): void {
    const held = this.held.get(tenantId);
    if (held === undefined) return;
    const list = USER_LISTS[kind];
    const current = held.input[list] as StoredResource[];
    const at = current.findIndex((r) => r.metadata.name === name);
    if (at < 0) return;
    const next = [...current];
    next[at] = { ...(current[at] as StoredResource), status };
    held.input = { ...held.input, [list]: next };
  }

  forget(tenantId: string): void {
    this.held.delete(tenantId);
  }

  private async full(tenant: Tenant, reason: string): Promise<{ input: TranslateInput; stats: LoadStats; translator: Translator }> {
    // An entry is there only once its change committed: every entry read before the load is in it.
    // One that commits during the load is not marked, and is applied (again) by the next load.
    const entries = await this.store.changes.since(tenant.id, tenant.revision - CHANGE_LOG_SLACK + 1);
    const input = await loadTranslateInput(this.store, tenant.id);
    const applied = new Map(entries.map((e): [string, number] => [e.id, e.revision]));
    const translator = new Translator();
    this.keep(tenant.id, {
      incarnation: tenant.createdAt,
      revision: tenant.revision,
      unlogged: tenant.unloggedChanges ?? 0,
      input,
      loadedAt: this.options.now(),
      applied,
      translator,
    });
    const items = itemsOf(input);
    return { input: { ...input }, stats: { mode: "full", reason, itemsRead: entries.length + items, itemsHeld: items }, translator };
  }

  /** The discovered objects of `clusters` read again (none for a cluster no longer registered). */
  private async reloadDiscovery(tenantId: string, input: TranslateInput, clusters: string[], registered: ReadonlySet<string>): Promise<number> {
    const present = clusters.filter((c) => registered.has(c));
    const [meshes, workloads, destinations] = await Promise.all([
      this.store.discovered.list(tenantId, present, "Mesh"),
      this.store.discovered.list(tenantId, present, "Workload"),
      this.store.discovered.list(tenantId, present, "Destination"),
    ]);
    const reloaded = new Set(clusters);
    // Also drops what belonged to clusters that are gone.
    const keep = <T extends { spec: { cluster: string } }>(list: T[]) => list.filter((o) => !reloaded.has(o.spec.cluster) && registered.has(o.spec.cluster));
    input.meshes = [...keep(input.meshes), ...(meshes as Mesh[])];
    input.workloads = [...keep(input.workloads), ...(workloads as Workload[])];
    input.destinations = [...keep(input.destinations), ...(destinations as Destination[])];
    return meshes.length + workloads.length + destinations.length;
  }

  private keep(tenantId: string, held: Held): void {
    this.held.delete(tenantId);
    this.held.set(tenantId, held);
    while (this.held.size > this.options.maxTenants) this.held.delete(this.held.keys().next().value as string);
    // The map is in order of use, the latest last: only the latest keep their translation.
    let translators = 0;
    for (const other of [...this.held.values()].toReversed())
      if (other.translator !== undefined && ++translators > this.options.maxTranslators) delete other.translator;
  }
}

/** Puts the stored version of one resource in the input, or takes it out when it is gone. */
function replaceResource(input: TranslateInput, ref: { kind: UserKind; name: string }, stored: StoredResource | undefined): void {
  const list = USER_LISTS[ref.kind];
  const rest = (input[list] as StoredResource[]).filter((r) => r.metadata.name !== ref.name);
  (input as unknown as Record<string, StoredResource[]>)[list] = stored === undefined ? rest : [...rest, stored];
}
