/** How each cluster's agent is doing, read from the API: what `cluster list`, `cluster describe` and `check` show. */
import { type ClusterHealth, type ClusterView, type SnapshotView, readEach } from "@meshplane/core";
import { type Client, listAll } from "./client";

export { type ClusterHealth, type ClusterView, type SnapshotView, STALE_AFTER_S, ago, certificateDays, problemsOf, secondsSince } from "@meshplane/core";

/** Every registered cluster, as the API answers `GET /v1/clusters`. */
export function listClusters(client: Client): Promise<ClusterView[]> {
  return listAll<ClusterView>(client, "/v1/clusters");
}

/** One cluster with its sync state (without its objects). */
export async function healthOf(client: Client, cluster: ClusterView): Promise<ClusterHealth> {
  // Sync state only: the objects are not needed to say how an agent is doing.
  const { body } = await client.request<SnapshotView>("GET", `/v1/clusters/${encodeURIComponent(cluster.name)}/snapshot?objects=false`);
  return { cluster, snapshot: body };
}

/** Every cluster's health, a few requests at a time (the client waits out a 429 by itself). */
export function healthOfAll(client: Client, clusters: ClusterView[]): Promise<ClusterHealth[]> {
  return readEach(clusters, async (cluster) => (await healthOf(client, cluster)).snapshot);
}
