import { type ResourceKey, type ResourceStatus, objectKey, resourceKey } from "@meshplane/core/base";
import { type ClusterOutput, objectRefs } from "@meshplane/core/translate";
import type { StoredReport } from "../store/index";

type ClusterStatus = NonNullable<ResourceStatus["clusters"]>[string];

/** For each cluster: parent resource key → ids of the objects it produced there. */
function objectsByParent(outputs: Record<string, ClusterOutput>): Map<string, Map<string, string[]>> {
  const out = new Map<string, Map<string, string[]>>();
  // Objects with the same parents share one annotation text: parse each text once, not per object.
  const parsed = new Map<string, string[]>();
  const parentKeys = (text: string): string[] => {
    let keys = parsed.get(text);
    if (keys === undefined) parsed.set(text, (keys = (JSON.parse(text) as { kind: string; name: string }[]).map((p) => resourceKey(p.kind, p.name))));
    return keys;
  };
  for (const [cluster, output] of Object.entries(outputs)) {
    const byParent = new Map<string, string[]>();
    // Read from the output's encoding: the objects themselves are never built here.
    for (const obj of objectRefs(output)) {
      for (const key of parentKeys(obj.parents)) {
        const ids = byParent.get(key);
        const id = objectKey(obj.kind, obj.namespace, obj.name);
        if (ids) ids.push(id);
        else byParent.set(key, [id]);
      }
    }
    out.set(cluster, byParent);
  }
  return out;
}

/**
 * Adds `status.clusters` to the translator's statuses from the agents' last reports: per cluster
 * where the resource produced objects, the generation published, whether the agent has applied it,
 * and the cluster's error text for any of those objects it rejected. A resource whose output a
 * cluster rejected becomes FAILED (docs/resources.md#status); INVALID stays INVALID.
 */
export function withClusterStatus(
  statuses: Record<ResourceKey, ResourceStatus>,
  outputs: Record<string, ClusterOutput>,
  generations: Map<string, number>,
  reports: Map<string, StoredReport>,
): Record<ResourceKey, ResourceStatus> {
  const byCluster = objectsByParent(outputs);
  const failuresByCluster = new Map<string, Map<string, string>>();
  for (const [cluster, report] of reports) {
    failuresByCluster.set(
      cluster,
      new Map(report.failures.map((f) => [objectKey(f.kind, f.namespace, f.name), `${f.kind} ${f.namespace ? `${f.namespace}/` : ""}${f.name}: ${f.error}`])),
    );
  }
  const clustersInOrder = [...byCluster].sort(([a], [b]) => (a < b ? -1 : 1));
  const out: Record<ResourceKey, ResourceStatus> = {};
  for (const [key, status] of Object.entries(statuses) as [ResourceKey, ResourceStatus][]) {
    const clusters: Record<string, ClusterStatus> = {};
    let failed = false;
    for (const [cluster, byParent] of clustersInOrder) {
      const ids = byParent.get(key);
      if (!ids) continue;
      const generation = generations.get(cluster) ?? 0;
      const report = reports.get(cluster);
      const failures = failuresByCluster.get(cluster);
      const errors = ids.flatMap((id) => (failures?.has(id) ? [failures.get(id) as string] : []));
      if (report?.error && report.generation < generation) errors.push(`agent: ${report.error}`);
      if (ids.some((id) => failures?.has(id))) failed = true;
      clusters[cluster] = {
        generation,
        applied: report !== undefined && report.generation >= generation && errors.length === 0,
        ...(errors.length > 0 ? { errors } : {}),
      };
    }
    const withClusters: ResourceStatus = Object.keys(clusters).length > 0 ? { ...status, clusters } : { ...status };
    if (failed && withClusters.state === "ACCEPTED") withClusters.state = "FAILED";
    out[key] = withClusters;
  }
  return out;
}
