/**
 * How each cluster's agent is doing, as the API reports it: what the CLI's `cluster list`, `cluster
 * describe` and `check` print and what the console's overview shows. Pure: the caller fetches.
 */
import type { z } from "zod";
import type { clusterView } from "../api/responses";

/** A cluster as the API answers it (the response schema's type). */
export type ClusterView = z.infer<typeof clusterView>;

export interface SnapshotView {
  generation: number;
  appliedGeneration: number;
  inSync: boolean;
  lastSeenAt: string | null;
  signedAt: string | null;
  failures: { kind: string; namespace?: string; name: string; error?: string }[];
  agentError: string | null;
  objects: unknown[];
}

export interface ClusterHealth {
  cluster: ClusterView;
  snapshot: SnapshotView;
}

/**
 * Seen within this many seconds counts as connected. The control plane records a poll at most every
 * 5 minutes (its one write per cluster), so twice that: a missed record is not an outage.
 */
export const STALE_AFTER_S = 600;

export function secondsSince(iso: string | null | undefined, now: Date): number | undefined {
  if (!iso) return undefined;
  return Math.max(0, Math.round((now.getTime() - Date.parse(iso)) / 1000));
}

export function ago(seconds: number | undefined): string {
  if (seconds === undefined) return "never";
  if (seconds < 120) return `${seconds}s ago`;
  if (seconds < 7200) return `${Math.round(seconds / 60)}m ago`;
  if (seconds < 172_800) return `${Math.round(seconds / 3600)}h ago`;
  return `${Math.round(seconds / 86_400)}d ago`;
}

/** The earliest certificate expiry of a cluster's meshes, in days, or undefined without shared trust. */
export function certificateDays(cluster: ClusterView, now: Date): number | undefined {
  const days = (cluster.certificates ?? []).flatMap((c) => (c.notAfter ? [(Date.parse(c.notAfter) - now.getTime()) / 86_400_000] : []));
  return days.length === 0 ? undefined : Math.floor(Math.min(...days));
}

/** What is wrong with one cluster, in words; empty when nothing is. */
export function problemsOf(h: ClusterHealth, now: Date, options: { staleAfterS: number; certificateWarnDays: number }): string[] {
  const problems: string[] = [];
  const { cluster, snapshot } = h;
  if (cluster.state !== "registered")
    problems.push("its agent has not registered yet: install it with the helm line from `meshplane cluster register` (or `cluster bootstrap-token`)");
  else {
    const seen = secondsSince(snapshot.lastSeenAt ?? cluster.lastSeenAt, now);
    if (seen === undefined || seen > options.staleAfterS)
      problems.push(`its agent was last seen ${ago(seen)}: is it running and can it reach the control plane?`);
  }
  if (snapshot.agentError) problems.push(`its agent applied nothing: ${snapshot.agentError}`);
  if (snapshot.generation > 0 && snapshot.appliedGeneration !== snapshot.generation)
    problems.push(`applied generation ${snapshot.appliedGeneration}, latest ${snapshot.generation}`);
  for (const f of snapshot.failures)
    problems.push(`failed to apply ${f.kind} ${f.namespace ? `${f.namespace}/` : ""}${f.name}${f.error ? `: ${f.error}` : ""}`);
  for (const c of cluster.certificates ?? []) {
    if (c.state === "failed") problems.push(`certificates of mesh ${c.mesh} failed${c.error ? `: ${c.error}` : ""}`);
    else if (c.notAfter) {
      const days = Math.floor((Date.parse(c.notAfter) - now.getTime()) / 86_400_000);
      if (days < 0)
        problems.push(`the intermediate CA of mesh ${c.mesh} expired ${-days} day(s) ago (${c.notAfter}): its workloads' certificates stop renewing`);
      else if (days < options.certificateWarnDays) problems.push(`the intermediate CA of mesh ${c.mesh} expires in ${days} day(s) (${c.notAfter})`);
    }
  }
  const metrics = cluster.metrics;
  if (metrics && metrics.state !== "ok") {
    const detail = metrics.message ? `: ${metrics.message}` : "";
    problems.push(
      metrics.state === "refused"
        ? `the control plane refused its agent's metrics report${detail}`
        : `its agent ${metrics.state === "partial" ? "read only part of" : "could not read"} the cluster's Prometheus${detail} (the agent chart's metrics.prometheus values say where and how)`,
    );
  }
  return problems;
}

/**
 * Every cluster with its sync state, `read` (the caller's request for one cluster) run for a few
 * clusters at a time, in the clusters' order.
 */
export async function readEach<S>(
  clusters: readonly ClusterView[],
  read: (cluster: ClusterView) => Promise<S>,
  inFlight = 4,
): Promise<{ cluster: ClusterView; snapshot: S }[]> {
  const out: { cluster: ClusterView; snapshot: S }[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(inFlight, clusters.length) }, async () => {
      while (next < clusters.length) {
        const i = next++;
        const cluster = clusters[i] as ClusterView;
        out[i] = { cluster, snapshot: await read(cluster) };
      }
    }),
  );
  return out;
}
