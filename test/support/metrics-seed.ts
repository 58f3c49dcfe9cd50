/**
 * Metrics for tests: the local control plane with its metrics store on the SQS/S3 emulator, a change
 * recorded from an agent's status reports, and a report posted as a cluster's agent
 * (`POST /v1/agent/metrics`, gzip, a POST-bound JWT as the agent signs it), then waited for until the
 * store has it.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { gzipSync } from "node:zlib";
import type { MetricsEdge, MetricsReport } from "@meshplane/core";
import { type JWK, SignJWT, calculateJwkThumbprint } from "jose";
import { inject } from "vitest";
import type { ControlPlaneClient } from "../../packages/agent/src/control-plane/client";
import { type MetricsLocal, startMetricsLocal } from "../../functions/local/metrics-local";
import type { MetricsReader } from "../../functions/metrics/index";
import { createLogger } from "../../functions/shared/logger";
import { type ControlPlane, startControlPlane, trafficPolicy } from "./control-plane";

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

/** A control plane whose metrics are kept in a store of its own on the emulator. */
export interface MetricsPlane {
  cp: ControlPlane;
  metrics: MetricsLocal;
  /** Seeds through `cp` into `metrics`, running the ingest at once instead of waiting for a poller. */
  target: SeedTarget;
  /** Stops the control plane, then the metrics store. */
  stop(): Promise<void>;
}

/**
 * Starts the metrics store on the SQS/S3 emulator (MetricsLocal, with a bucket and queues named for
 * this call alone, so that test files sharing the emulator never mix, logging nothing, no poller: the
 * ingest runs when `target` or `metrics.drain()` says) and the local control plane reading it.
 */
export async function startMetrics(): Promise<MetricsPlane> {
  const metrics = await startMetricsLocal({
    endpoint: inject("sqsEndpoint"),
    region: "us-east-1",
    suffix: randomBytes(4).toString("hex"),
    log: createLogger({ service: "metrics" }, () => {}),
  });
  const cp = await startControlPlane({ metrics: metrics.api }).catch(async (error: unknown) => {
    await metrics.stop();
    throw error;
  });
  return {
    cp,
    metrics,
    target: { url: cp.url, reader: metrics.api, ingest: () => metrics.drain() },
    async stop() {
      await cp.stop();
      await metrics.stop();
    },
  };
}

/** A cluster's agent as the status reports see it: its tenant, cluster and client. */
export interface StatusAgent {
  tenant: string;
  cluster: string;
  client: ControlPlaneClient;
}

/** Reports the cluster's latest generation applied, as its agent does once it has applied it; answers it. */
async function applyLatest(cp: ControlPlane, agent: StatusAgent): Promise<number> {
  await cp.work();
  const generation = (await cp.store.snapshots.head(agent.tenant, agent.cluster, true))?.snapshot?.generation;
  if (generation === undefined) throw new Error(`no snapshot for ${agent.cluster}: has its agent reported discovery?`);
  await agent.client.status({ generation, results: [] });
  await cp.work();
  return generation;
}

/** A change of TrafficPolicy `name` for `service` in namespace bookinfo: its `policy` (a 1 s request timeout unless given). */
export interface Change {
  name: string;
  service: string;
  policy?: Record<string, unknown>;
}

/**
 * Records a change on `agent`'s cluster from its status reports (docs/observability.md#change-impact),
 * at the control plane's clock: the generation applied first is the cluster's baseline; then the
 * TrafficPolicy of `change`, selecting its service in that cluster, is created with `token` and the
 * generation carrying it is reported applied. The agent's discovery must be in already; throws when
 * the policy brings the cluster no new generation (a conflict, say).
 */
export async function recordChange(
  cp: ControlPlane,
  token: string,
  agent: StatusAgent,
  change: Change = { name: "reviews-timeout", service: "reviews" },
): Promise<void> {
  const baseline = await applyLatest(cp, agent);
  const policy = trafficPolicy(change.name, {
    destinationSelector: [{ kubeServiceRefs: { services: [{ cluster: agent.cluster, namespace: "bookinfo", name: change.service }] } }],
    policy: change.policy ?? { requestTimeout: "1s" },
  });
  const res = await cp.request("POST", "/v1/trafficpolicies", { token, body: policy });
  if (res.status !== 201) throw new Error(`TrafficPolicy ${change.name}: ${res.status} ${await res.text()}`);
  if ((await applyLatest(cp, agent)) === baseline) {
    const { status } = (await (await cp.request("GET", `/v1/trafficpolicies/${change.name}`, { token })).json()) as { status?: unknown };
    throw new Error(`TrafficPolicy ${change.name} brought ${agent.cluster} no new generation: ${JSON.stringify(status)}`);
  }
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

/** An http edge in namespace bookinfo from `workload` in Istio cluster `from` to `service` in `to`, seen by the server. */
export const bookinfoEdge = (from: string, workload: string, to: string, service: string): MetricsEdge => ({
  source: { cluster: from, namespace: "bookinfo", workload },
  destination: { cluster: to, namespace: "bookinfo", service },
  protocol: "http",
  view: "server",
});

/** Traffic on one edge: `requests` a minute, all in latency bucket `bucket` (4 is (10, 25] ms, 6 is (50, 100] ms). */
export interface Flow {
  edge: MetricsEdge;
  requests: number;
  /** Failures (5xx) in the minute starting then. */
  failures: (start: number) => number;
  bucket: number;
}

/** `cluster`'s reports of `flows` over `minutes`, at most 15 minutes each, as its agent would send them. */
export function flowReports(cluster: string, istioClusterId: string, flows: Flow[], minutes: number[]): MetricsReport[] {
  const out: MetricsReport[] = [];
  for (let i = 0; i < minutes.length; i += 15)
    out.push({
      cluster,
      generatedAt: Date.now(),
      istioClusterId,
      health: { state: "ok" },
      edges: flows.map((f) => f.edge),
      minutes: minutes.slice(i, i + 15).map((start) => ({
        start,
        rows: flows.map((f, edge) => {
          const failures = f.failures(start);
          const latency = Array.from({ length: 20 }, (_, b) => (b === f.bucket ? f.requests : 0));
          return { edge, requests: f.requests, failures, non2xx: failures, errors5xx: failures, latency };
        }),
      })),
    });
  return out;
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
