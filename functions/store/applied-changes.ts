/**
 * The change markers' record (docs/observability.md#change-impact): which VirtualMesh, TrafficPolicy
 * and AccessPolicy versions reached a cluster, and when. When a cluster's agent reports a generation
 * applied that is newer than the last one recorded, the versions that generation carried are read
 * from the resources' stored statuses (`status.clusters` names the generation each resource's output
 * went out with, `observedGeneration` its version) and compared with the versions recorded for the
 * cluster before: each version that differs is a change, kept with the destinations it selects
 * (`status.destinations`) or, for a VirtualMesh, its member meshes. Changes are tenant items sorted by
 * time with a 32-day TTL; the versions a cluster last carried are one item of the cluster's partition
 * (gone with the cluster).
 */
import { gunzipSync, gzipSync } from "node:zlib";
import { GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import type { StoredResource, UserKind } from "@meshplane/core/base";
import { batchWrite, queryItemsBetween } from "./batch";
import { conditionHeld } from "./conditions";
import { keys, tenantPk } from "./keys";
import type { StoreDeps } from "./resources";
import { TTL_ATTRIBUTE } from "./table";

/** How long a change is kept: the longest window the metrics API reads (30 days), and a little more. */
export const APPLIED_CHANGE_TTL_S = 32 * 86_400;
/** The most gzipped change JSON one item holds, under DynamoDB's 400 KB with room for keys. */
const PART_BYTES = 300_000;

/** One resource version that reached a cluster. */
export interface AppliedResource {
  kind: UserKind;
  name: string;
  /** The resource's `metadata.generation` its output was made from. */
  version: number;
  /** The destinations it selects (a TrafficPolicy's or AccessPolicy's `status.destinations`). */
  destinations?: string[];
  /** A VirtualMesh's member meshes: it changes what reaches every destination of them. */
  meshes?: string[];
}

/** The changes one applied generation brought to a cluster. */
export interface AppliedChanges {
  cluster: string;
  generation: number;
  /** When the agent reported it applied (RFC 3339). */
  at: string;
  changes: AppliedResource[];
}

/** Versions a cluster carries: `<kind>/<name>` → version. */
export type CarriedVersions = Record<string, number>;

const carriedKey = (kind: string, name: string) => `${kind}/${name}`;

/**
 * What the cluster's applied `generation` carried of `resources` and which of it differs from
 * `previous`: a resource whose status says its output went to `cluster` at `generation` or before,
 * at the version that status was made for. A resource whose status already names a later generation
 * for the cluster (a newer translation published meanwhile) keeps its `previous` version, to be told
 * when that generation is applied. A resource no longer sent to the cluster is dropped, no change.
 */
export function carriedBy(
  resources: readonly StoredResource[],
  cluster: string,
  generation: number,
  previous: CarriedVersions,
): { versions: CarriedVersions; changed: AppliedResource[] } {
  const versions: CarriedVersions = {};
  const changed: AppliedResource[] = [];
  for (const r of resources) {
    const key = carriedKey(r.kind, r.metadata.name);
    const placed = r.status.clusters?.[cluster];
    if (!placed) continue;
    if (placed.generation > generation) {
      if (previous[key] !== undefined) versions[key] = previous[key];
      continue;
    }
    const version = r.status.observedGeneration;
    versions[key] = version;
    if (previous[key] === version) continue;
    const destinations = Object.keys(r.status.destinations ?? {}).sort();
    const meshes = Object.keys(r.status.meshes ?? {}).sort();
    changed.push({
      kind: r.kind,
      name: r.metadata.name,
      version,
      ...(destinations.length > 0 ? { destinations } : {}),
      ...(meshes.length > 0 ? { meshes } : {}),
    });
  }
  return { versions, changed };
}

/** `changes` in parts of at most PART_BYTES gzipped each (a policy over 10,000 destinations names them all). */
function parts(changes: AppliedResource[]): Buffer[] {
  const whole = gzipSync(JSON.stringify(changes));
  if (whole.length <= PART_BYTES || changes.length <= 1) return [whole];
  const half = Math.ceil(changes.length / 2);
  return [...parts(changes.slice(0, half)), ...parts(changes.slice(half))];
}

/** The change markers' record. */
export class AppliedChangeStore {
  constructor(private readonly deps: StoreDeps) {}

  /**
   * Records what the cluster's applied `generation` changed, judged on `resources` (the tenant's
   * VirtualMeshes, TrafficPolicies and AccessPolicies with their statuses) against what the cluster
   * carried before. The first generation recorded for a cluster is its baseline: no change. Answers
   * the changes recorded; undefined when the generation is not newer than the last one recorded.
   */
  async record(tenantId: string, cluster: string, generation: number, resources: readonly StoredResource[], now: Date): Promise<AppliedChanges | undefined> {
    const { doc, table } = this.deps;
    const stored = (await doc.send(new GetCommand({ TableName: table, Key: keys.appliedVersions(tenantId, cluster), ConsistentRead: true }))).Item;
    if (stored && (stored.generation as number) >= generation) return undefined;
    const previous = stored ? (JSON.parse(gunzipSync(stored.versions as Uint8Array).toString()) as CarriedVersions) : undefined;
    const { versions, changed } = carriedBy(resources, cluster, generation, previous ?? {});
    const at = Math.floor(now.getTime() / 1000);
    const record: AppliedChanges = { cluster, generation, at: now.toISOString(), changes: previous ? changed : [] };
    if (record.changes.length > 0) {
      const ttl = at + APPLIED_CHANGE_TTL_S;
      await batchWrite(
        doc,
        table,
        parts(record.changes).map((data, part) => ({
          PutRequest: {
            Item: { ...keys.appliedChange(tenantId, at, cluster, generation, part), cluster, generation, at: record.at, changes: data, [TTL_ATTRIBUTE]: ttl },
          },
        })),
      );
    }
    // Two reports racing: the later generation's versions stay.
    await conditionHeld(
      doc.send(
        new PutCommand({
          TableName: table,
          Item: { ...keys.appliedVersions(tenantId, cluster), generation, versions: gzipSync(JSON.stringify(versions)) },
          ConditionExpression: "attribute_not_exists(generation) OR generation < :g",
          ExpressionAttributeValues: { ":g": generation },
        }),
      ),
    );
    return record;
  }

  /** Every change recorded in [from, to), oldest first. */
  async between(tenantId: string, from: Date, to: Date): Promise<AppliedChanges[]> {
    const fromS = Math.floor(from.getTime() / 1000);
    const toS = Math.ceil(to.getTime() / 1000) - 1;
    if (toS < fromS) return [];
    const items = await queryItemsBetween(this.deps.doc, this.deps.table, tenantPk(tenantId), keys.appliedChangeAt(fromS), `${keys.appliedChangeAt(toS)}~`);
    const byGeneration = new Map<string, AppliedChanges>();
    for (const item of items) {
      const id = `${item.cluster as string}#${item.generation as number}`;
      const changes = JSON.parse(gunzipSync(item.changes as Uint8Array).toString()) as AppliedResource[];
      const seen = byGeneration.get(id);
      if (seen) seen.changes.push(...changes);
      else byGeneration.set(id, { cluster: item.cluster as string, generation: item.generation as number, at: item.at as string, changes });
    }
    return [...byGeneration.values()];
  }
}
