/**
 * Metrics for tests: a report posted as a cluster's agent (`POST /v1/agent/metrics`, gzip, a
 * POST-bound JWT as the agent signs it), then waited for until the store has it.
 */
import { randomUUID } from "node:crypto";
import { gzipSync } from "node:zlib";
import type { MetricsReport } from "@meshplane/core";
import { type JWK, SignJWT, calculateJwkThumbprint } from "jose";
import type { MetricsReader } from "../../functions/metrics/index";

/** A cluster's agent: its tenant, cluster and key pair (as test/support/agents.ts's `agentKey` makes it). */
export interface SeedAgent {
  tenant: string;
  cluster: string;
  key: { privateKey: Parameters<SignJWT["sign"]>[0]; publicJwk: JWK };
}

/**
 * Where to seed: the control plane's URL (the agents' audience), and how to know the report is kept —
 * `reader` (the metrics store's reader, as the integration harness holds it), `ingest` (runs the
 * ingest now instead of waiting for the poller, as MetricsLocal's `drain`), or `readable` (any check,
 * e.g. a read through the API); with none of them, the local poller's batching window is waited out.
 */
export interface SeedTarget {
  url: string;
  reader?: MetricsReader;
  ingest?: () => Promise<unknown>;
  readable?: () => Promise<boolean>;
}

/** An agent JWT for POST, as the agent signs one: 60 s, its own jti. */
export async function agentPostToken(url: string, agent: SeedAgent, now = Date.now()): Promise<string> {
  const iat = Math.floor(now / 1000);
  return new SignJWT({ tenant: agent.tenant, htm: "POST" })
    .setProtectedHeader({ alg: "ES256", kid: await calculateJwkThumbprint(agent.key.publicJwk) })
    .setIssuer("agent")
    .setSubject(agent.cluster)
    .setAudience(url)
    .setIssuedAt(iat)
    .setExpirationTime(iat + 60)
    .setJti(randomUUID())
    .sign(agent.key.privateKey);
}

/** Posts `report` as `agent` (gzip unless `plain`); the raw answer. */
export async function postMetrics(url: string, agent: SeedAgent, report: unknown, options: { plain?: boolean; body?: Uint8Array } = {}): Promise<Response> {
  const json = () => Buffer.from(JSON.stringify(report));
  const body = options.body ?? (options.plain ? json() : gzipSync(json()));
  return fetch(`${url}/v1/agent/metrics`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${await agentPostToken(url, agent)}`,
      "content-type": "application/json",
      ...(options.plain && !options.body ? {} : { "content-encoding": "gzip" }),
    },
    body,
  });
}

/** Whether every minute of `report` is readable as the cluster's bucket with as many rows. */
async function kept(reader: MetricsReader, agent: SeedAgent, report: MetricsReport): Promise<boolean> {
  if (report.minutes.length === 0) return true;
  const starts = report.minutes.map((m) => m.start);
  const buckets = await reader.buckets(agent.tenant, Math.min(...starts), Math.max(...starts) + 60);
  return report.minutes.every((m) => buckets.some((b) => b.cluster === agent.cluster && b.start === m.start && b.rows.length === m.rows.length));
}

/**
 * Posts `report` as `agent` to `target` and waits (up to `timeoutMs`) until it is readable; throws
 * with the answer when it is not accepted (202), or when it never becomes readable.
 */
export async function seedMetrics(target: SeedTarget, agent: SeedAgent, report: MetricsReport, timeoutMs = 15_000): Promise<void> {
  const res = await postMetrics(target.url, agent, report);
  if (res.status !== 202) throw new Error(`metrics report for ${agent.cluster}: ${res.status} ${await res.text()}`);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await target.ingest?.();
    const { reader, readable } = target;
    if (reader === undefined && readable === undefined) return void (await new Promise((r) => setTimeout(r, 3000)));
    if ((reader === undefined || (await kept(reader, agent, report))) && (readable === undefined || (await readable()))) return;
    if (Date.now() > deadline) throw new Error(`the metrics report of ${agent.cluster} was not readable within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * A report of `cluster` whose edges are `edges` callers of one destination each (namespace `shop`),
 * every minute of `minutes` with `requests` requests an edge, `failures` of them 5xx, and latency in
 * the 25 ms bucket.
 */
export function sampleReport(
  cluster: string,
  minutes: number[],
  o: { edges?: number; requests?: number; failures?: number; generatedAt?: number; istioClusterId?: string } = {},
): MetricsReport {
  const istio = o.istioClusterId ?? cluster;
  const edges = Array.from({ length: o.edges ?? 3 }, (_, i) => ({
    source: { cluster: istio, namespace: "shop", workload: `caller-${i}` },
    destination: { cluster: istio, namespace: "shop", service: `svc-${i % 50}` },
    protocol: "http" as const,
    view: "server" as const,
  }));
  const requests = o.requests ?? 100;
  const failures = o.failures ?? 0;
  const latency = Array.from({ length: 20 }, (_, i) => (i === 4 ? requests : 0));
  return {
    cluster,
    generatedAt: o.generatedAt ?? Date.now(),
    istioClusterId: istio,
    health: { state: "ok" },
    edges,
    minutes: minutes.map((start) => ({
      start,
      rows: edges.map((_, edge) => ({ edge, requests, non2xx: failures, errors5xx: failures, failures, latency })),
    })),
  };
}
