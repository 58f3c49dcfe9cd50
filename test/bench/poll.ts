/**
 * The agent poll path: an unchanged snapshot answered 304. Measures polls per second through the
 * local HTTP server, server CPU per poll, and DynamoDB operations per poll (the read must be one).
 */
import { cpus } from "node:os";
import { snapshotEtag } from "@meshplane/core";
import { ControlPlaneClient } from "../../packages/agent/src/client";
import { agentKey } from "../support/agents";
import { benchPlane } from "./_harness";

const POLLS = Number(process.env.POLLS ?? 2000);
const CONCURRENCY = 8;

// The server's own throughput is measured, not the per-cluster budget (which would refuse it).
const plane = await benchPlane({ limits: { agent: { limit: 1e9, windowMs: 10_000, lease: 1000 } } });
try {
  const admin = ((await (await plane.request("POST", "/v1/tenants", plane.operatorToken, { name: "bench" })).json()) as { adminToken: string }).adminToken;
  const { bootstrapToken } = (await (await plane.request("POST", "/v1/clusters", admin, { name: "c1" })).json()) as { bootstrapToken: string };
  const key = await agentKey();
  await ControlPlaneClient.register(plane.url, bootstrapToken, key.publicJwk, "bench");
  const client = new ControlPlaneClient({ url: plane.url, tenant: "bench", cluster: "c1", key });
  // A snapshot to be unchanged against: publish one directly through the store.
  await plane.store.snapshots.write("bench", "c1", undefined, { generation: 1, hash: `sha256:${"0".repeat(64)}`, signedAt: new Date().toISOString(), exp: 2e9 }, Buffer.from("x"));
  const etag = snapshotEtag(1, `sha256:${"0".repeat(64)}`);
  // Tokens are minted before timing: the agent's signing cost is not the server's.
  const tokens = await Promise.all(Array.from({ length: POLLS }, () => client.token()));
  const poll = async (token: string) => {
    const res = await fetch(`${plane.url}/v1/agent/snapshot`, { headers: { authorization: `Bearer ${token}`, "if-none-match": etag } });
    if (res.status !== 304) throw new Error(`expected 304, got ${res.status}`);
  };
  for (const t of tokens.splice(0, 100)) await poll(t); // warm up
  plane.ops.reset();
  const cpuBefore = process.cpuUsage();
  const start = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < tokens.length) await poll(tokens[next++] as string);
  }));
  const seconds = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const polls = tokens.length;
  const figures = {
    bench: "poll",
    polls,
    concurrency: CONCURRENCY,
    polls_per_s: Math.round(polls / seconds),
    // Client and server share this process: the figure is an upper bound on the server's share.
    process_cpu_ms_per_poll: Number(((cpu.user + cpu.system) / 1000 / polls).toFixed(3)),
    dynamodb_reads_per_poll: Number((plane.ops.get("Get", "GetItem", "Query", "BatchGet") / polls).toFixed(2)),
    dynamodb_writes_per_poll: Number((plane.ops.get("Put", "PutItem", "Update", "UpdateItem", "TransactWrite", "BatchWrite") / polls).toFixed(2)),
    cores: cpus().length,
  };
  console.log(`${polls} polls → 304 in ${seconds.toFixed(2)} s with ${CONCURRENCY} in flight`);
  console.log(JSON.stringify(figures));
} finally {
  await plane.stop();
}
