/**
 * The agent poll path: an unchanged snapshot answered 304, at the shipped budgets. Measures polls per
 * second through the local HTTP server across many clusters, server CPU per poll, and DynamoDB
 * operations per poll (one read, no write: no rate-limit lease either), checking every answer, and
 * prices a cluster-month from those counts at AWS list prices (us-east-1): at the default 15 s poll,
 * and with a push channel and a 300 s fallback poll; then a month of 10, 1,000 and 10,000 clusters
 * with the deployment's fixed costs (README, "What it costs").
 */
import { cpus } from "node:os";
import { FIRST_RECONNECT_SPREAD_MS, snapshotEtag } from "@meshplane/core";
import { FREE_POLLS } from "../../functions/http/middleware/rate-limiter";
import type { ControlPlaneClient } from "../../packages/agent/src/control-plane/client";
import { benchPlane, expectStatus } from "./_harness";
import { PRICE } from "./_prices";

const POLLS = Number(process.env.POLLS ?? 2000);

const round = (usd: number) => Math.round(usd * 10_000) / 10_000;
const MONTH_S = 30 * 86_400;

/**
 * A cluster-month from counted per-poll figures. Polls are the interval plus the agent's mean 10 %
 * jitter. A poll is an HTTP API request, a Lambda invocation billed at the measured CPU time
 * (rounded up to the millisecond, at least 1), the counted DynamoDB reads (0.5 read unit each: an
 * eventually consistent read under 4 KB) and writes; lastSeenAt adds a write per 5 minutes; the
 * access log about 250 bytes a request. With push: one WebSocket connection open all month and a
 * keepalive message each way every 9 minutes (API Gateway drops idle connections at 10). A channel
 * lasts as long as its token (the agent's push token: 5 minutes), and on AWS it ends at the first
 * event after that, the next keepalive: so each keepalive is also a reconnect, after the agent's
 * first reconnect wait (15 s on average). A reconnect is counted from the code (docs/push.md): the
 * ping reads the connection and forgets it (a transaction of 2 deletes), `$disconnect` reads it
 * again, `$connect` reads the head, spends the token's jti (a put), counts the cluster's
 * connections (a query) and records it (a transaction of 2 puts), and the agent fetches once on
 * opening, a poll. Each event is a Lambda invocation; a transactional write costs 2 write units an item.
 */
function clusterMonth(o: { pollSeconds: number; reads: number; writes: number; cpuMs: number; push?: boolean }) {
  const reconnects = o.push ? MONTH_S / (540 + FIRST_RECONNECT_SPREAD_MS / 2000) : 0;
  const polls = MONTH_S / (o.pollSeconds * 1.1) + reconnects;
  const seenWrites = MONTH_S / 300;
  const keepalives = reconnects * 2;
  const invocations = polls + keepalives / 2 + reconnects * 2;
  const items: Record<string, number> = {
    "HTTP API requests": polls * PRICE.httpApiRequest,
    "Lambda requests and duration": invocations * (PRICE.lambdaRequest + Math.max(1, Math.ceil(o.cpuMs)) * PRICE.lambdaMs),
    "DynamoDB reads": (polls * o.reads + reconnects * 4) * 0.5 * PRICE.readUnit,
    "DynamoDB writes": (polls * o.writes + seenWrites + reconnects * (2 * 2 + 1 + 2 * 2)) * PRICE.writeUnit,
    "API access logs": ((polls + keepalives) * 250 * PRICE.logGb) / 1e9,
  };
  if (o.push) {
    items["WebSocket connection-minutes"] = (MONTH_S / 60) * PRICE.webSocketMinute;
    items["WebSocket messages"] = keepalives * PRICE.webSocketMessage;
  }
  return { items, total: Object.values(items).reduce((a, b) => a + b, 0) };
}

/**
 * Fixed per deployment and month: two KMS keys (snapshot signing, CA key encryption; $1 each), the
 * operator secret ($0.40), five alarms ($0.10 each), the dashboard ($3).
 */
const FIXED_USD = 2 * 1 + 0.4 + 5 * 0.1 + 3;
/** HTTP API requests beyond 300 million a month are $0.90 per million, not $1.00. */
const HTTP_API_TIER = { requests: 300e6, discount: 0.1 / 1e6 };

/** A month of `clusters` clusters: each one's cost, the HTTP API's volume tier, the fixed costs. */
function fleetMonth(clusters: number, c: ReturnType<typeof clusterMonth>) {
  const requests = (clusters * (c.items["HTTP API requests"] ?? 0)) / PRICE.httpApiRequest;
  return clusters * c.total - Math.max(0, requests - HTTP_API_TIER.requests) * HTTP_API_TIER.discount + FIXED_USD;
}
const FLEETS = [10, 1000, 10_000];
const CONCURRENCY = 8;
/** Clusters per tenant: each tenant registers its clusters within its write burst (docs/api.md, "Rate limits"). */
const CLUSTERS_PER_TENANT = 50;

// The shipped settings: the budgets of DEFAULT_LIMITS and the free polls of FREE_POLLS. An agent polls
// every 15 s (300 s beside the push channel), so the server's throughput is measured across many
// clusters, each polling as fast as the free polls of one instance allow: a warm-up poll, then the rest.
const plane = await benchPlane();
try {
  const perCluster = FREE_POLLS.burst - 1;
  const clusters = Math.ceil(POLLS / perCluster);
  const agents: { client: ControlPlaneClient; tenant: string; cluster: string }[] = [];
  for (let t = 0; t * CLUSTERS_PER_TENANT < clusters; t++) {
    const tenant = `bench-${t}`;
    const adminToken = await plane.tenant(tenant);
    const names = Array.from({ length: Math.min(CLUSTERS_PER_TENANT, clusters - t * CLUSTERS_PER_TENANT) }, (_, i) => `c${i}`);
    await Promise.all(names.map(async (cluster) => agents.push({ client: (await plane.agent(adminToken, tenant, cluster)).client, tenant, cluster })));
  }
  // A snapshot to be unchanged against: publish one directly through the store.
  const hash = `sha256:${"0".repeat(64)}`;
  for (const a of agents)
    await plane.store.snapshots.write(a.tenant, a.cluster, undefined, { generation: 1, hash, signedAt: new Date().toISOString(), exp: 2e9 }, Buffer.from("x"));
  const etag = snapshotEtag(1, hash);
  const poll = async (token: string) => {
    await expectStatus(
      fetch(`${plane.url}/v1/agent/snapshot`, { headers: { authorization: `Bearer ${token}`, "if-none-match": etag } }),
      304,
      "GET /v1/agent/snapshot",
    );
  };
  // The warm-up poll of each cluster records its lastSeenAt (a write per 5 minutes, priced below).
  for (const a of agents) await poll(await a.client.token("GET"));
  // Tokens are minted before timing: the agent's signing cost is not the server's.
  const tokens: string[] = [];
  for (let pass = 0; pass < perCluster; pass++) for (const a of agents) if (tokens.length < POLLS) tokens.push(await a.client.token("GET"));
  plane.ops.reset();
  const cpuBefore = process.cpuUsage();
  const start = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < tokens.length) await poll(tokens[next++] as string);
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const polls = tokens.length;
  const figures = {
    bench: "poll",
    polls,
    clusters: agents.length,
    concurrency: CONCURRENCY,
    polls_per_s: Math.round(polls / seconds),
    // Client and server share this process: the figure is an upper bound on the server's share.
    process_cpu_ms_per_poll: Number(((cpu.user + cpu.system) / 1000 / polls).toFixed(3)),
    dynamodb_reads_per_poll: Number((plane.ops.get("Get", "GetItem", "Query", "BatchGet") / polls).toFixed(2)),
    dynamodb_writes_per_poll: Number((plane.ops.get("Put", "PutItem", "Update", "UpdateItem", "TransactWrite", "BatchWrite") / polls).toFixed(2)),
    cores: cpus().length,
  };
  const at15 = clusterMonth({
    pollSeconds: 15,
    reads: figures.dynamodb_reads_per_poll,
    writes: figures.dynamodb_writes_per_poll,
    cpuMs: figures.process_cpu_ms_per_poll,
  });
  const withPush = clusterMonth({
    pollSeconds: 300,
    reads: figures.dynamodb_reads_per_poll,
    writes: figures.dynamodb_writes_per_poll,
    cpuMs: figures.process_cpu_ms_per_poll,
    push: true,
  });
  console.log(`${polls} polls of ${agents.length} clusters → 304 in ${seconds.toFixed(2)} s with ${CONCURRENCY} in flight, at the shipped budgets`);
  for (const [what, c] of [
    ["15 s poll", at15],
    ["push + 300 s poll", withPush],
  ] as const) {
    console.log(
      `per cluster-month, ${what}: $${c.total.toFixed(3)} (${Object.entries(c.items)
        .map(([k, v]) => `${k} $${v.toFixed(4)}`)
        .join(", ")})`,
    );
  }
  const fleets = (c: ReturnType<typeof clusterMonth>) => Object.fromEntries(FLEETS.map((n) => [n, Math.round(fleetMonth(n, c))]));
  console.log(
    JSON.stringify({
      ...figures,
      cluster_month_usd_15s_poll: round(at15.total),
      cluster_month_usd_push_300s_poll: round(withPush.total),
      fixed_month_usd: FIXED_USD,
      fleet_month_usd_15s_poll: fleets(at15),
      fleet_month_usd_push_300s_poll: fleets(withPush),
    }),
  );
} finally {
  await plane.stop();
}
