/**
 * What the API shows of clusters: a cluster with the certificate state of its shared-trust meshes,
 * what the cluster gets (its snapshot, sync state and failures), and what the agents discovered.
 */
import { type AuthoringGrant, grantOf } from "@meshplane/core/authoring";
import { storedPayload } from "../translation/input";
import type { MetricsSourceHealth } from "@meshplane/core/base";
import type { DiscoveredFilter, DiscoveredKind, DiscoveredPosition } from "../store/discovered";
import type { Cluster, Store, StoredMetricsHealth } from "../store/index";
import type { Page, PageRequest } from "../store/page";

/** A cluster as the API shows it: with each shared-trust mesh's `cacerts` as its agent last reported them. */
function withCertificates<C extends object, R>(cluster: C, certificates: R | undefined): C & { certificates?: R } {
  return certificates === undefined ? cluster : { ...cluster, certificates };
}

/** A cluster's effective grant as the API shows it: `default: true` when no tenant admin set one (docs/gitops.md#grants). */
export type AuthoringView = AuthoringGrant & { default?: true; unregistered?: string[] };

/** `cluster` with its effective grant (docs/gitops.md#grants) as `authoring`. */
function withAuthoring<C extends Pick<Cluster, "name" | "authoring">>(cluster: C): Omit<C, "authoring"> & { authoring: AuthoringView } {
  return { ...cluster, authoring: cluster.authoring ?? { ...grantOf(cluster.name, undefined), default: true } };
}

/** A cluster with its metrics health (docs/observability.md#clusters), when its agent ever sent metrics. */
function withMetrics<C extends object>(cluster: C, metrics: StoredMetricsHealth | undefined): C & { metrics?: StoredMetricsHealth } {
  return metrics === undefined ? cluster : { ...cluster, metrics };
}

/** One page of the tenant's clusters, each with its grant, certificates and metrics health as on clusterView: two batch reads per page. */
export async function clusterPage(deps: { store: Store }, tenantId: string, request: PageRequest) {
  const page: Page<Cluster> = await deps.store.clusters.page(tenantId, request);
  const names = page.items.map((cl) => cl.name);
  const [reports, metrics] = await Promise.all([deps.store.agents.reports(tenantId, names), deps.store.metricsHealth.many(tenantId, names)]);
  return { ...page, items: page.items.map((cl) => withMetrics(withCertificates(withAuthoring(cl), reports.get(cl.name)?.certificates), metrics.get(cl.name))) };
}

/**
 * The cluster `name` (NotFoundError without it), with its effective grant, the trust side — each
 * shared-trust mesh's cacerts as its agent reported it — and its metrics health.
 */
export async function clusterView(deps: { store: Store }, tenantId: string, name: string) {
  const cluster = await deps.store.clusters.get(tenantId, name);
  const [reports, metrics] = await Promise.all([deps.store.agents.reports(tenantId, [name]), deps.store.metricsHealth.get(tenantId, name)]);
  return withMetrics(withCertificates(withAuthoring(cluster), reports.get(name)?.certificates), metrics);
}

/**
 * What each of the tenant's clusters last said of reading its Prometheus, by cluster (a cluster whose
 * last report was refused: `unavailable`, the refusal in the message); clusters that never sent
 * metrics are absent. One query and one batch read.
 */
export async function metricsHealthOf(deps: { store: Store }, tenantId: string): Promise<Map<string, MetricsSourceHealth>> {
  const clusters = (await deps.store.clusters.list(tenantId)).map((cl) => cl.name);
  const out = new Map<string, MetricsSourceHealth>();
  for (const [cluster, h] of await deps.store.metricsHealth.many(tenantId, clusters)) {
    const message = h.state === "refused" ? `the control plane refused the last report: ${h.message ?? ""}` : h.message;
    out.set(cluster, { state: h.state === "refused" ? "unavailable" : h.state, ...(message ? { message } : {}) });
  }
  return out;
}

/**
 * What the cluster `name` gets (NotFoundError without it): the generation published and the one its
 * agent applied, whether they agree with no failure, what the agent last said, and — unless
 * `withObjects` is false — the snapshot's objects and certificates, whose body is read only then.
 */
export async function clusterSnapshot(deps: { store: Store }, tenantId: string, name: string, withObjects: boolean) {
  const { store } = deps;
  await store.clusters.get(tenantId, name);
  const head = await store.snapshots.head(tenantId, name, true);
  const report = (await store.agents.reports(tenantId, [name])).get(name);
  const snapshot = head?.snapshot;
  const payload = snapshot && withObjects ? await storedPayload(store, tenantId, name, snapshot) : undefined;
  return {
    cluster: name,
    generation: snapshot?.generation ?? 0,
    hash: snapshot?.hash ?? null,
    signedAt: snapshot?.signedAt ?? null,
    appliedGeneration: head?.appliedGeneration ?? 0,
    inSync: (head?.appliedGeneration ?? 0) === (snapshot?.generation ?? 0) && (report?.failures.length ?? 0) === 0,
    lastSeenAt: head?.lastSeenAt ?? null,
    // The agent has reported what it found in the cluster at least once (meshes may still be none).
    discoveryReported: head?.discoveryHash !== undefined,
    failures: report?.failures ?? [],
    agentError: report?.error ?? null,
    objects: payload?.objects ?? [],
    certificates: payload?.certificates ?? [],
  };
}

/** One page of the discovered objects of `kind` in the tenant's registered clusters that match `filter`, by cluster, then name. */
export async function discoveredPage(
  deps: { store: Store },
  tenantId: string,
  kind: DiscoveredKind,
  filter: DiscoveredFilter,
  request: PageRequest<DiscoveredPosition>,
) {
  const clusters = (await deps.store.clusters.list(tenantId)).map((cl) => cl.name);
  return deps.store.discovered.page(tenantId, clusters, kind, filter, request);
}
