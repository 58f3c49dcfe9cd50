/**
 * `npm start`: the whole control plane as one local process — DynamoDB Local (Java, persisted under
 * .meshplane/ unless --in-memory), the SQS emulator in-process, and the same hono app Lambda runs.
 */
import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { serve } from "@hono/node-server";
import { createApp } from "../http/app";
import { inProcessCsrSigner } from "../trust/ca-signer/in-process";
import { SINGLE_PROCESS_SHARING } from "../http/middleware/concurrency";
import { readEnv } from "../entries/env";
import { SQSClient } from "@aws-sdk/client-sqs";
import { createRuntime } from "../entries/runtime";
import { createWorker } from "../translation/batch";
import { PushHub } from "../push/hub";
import { startPoller } from "../translation/poller";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { ensureTable } from "../store/table";
import { bootstrapLocal } from "./bootstrap";
import { JAVA_MISSING, hasJava, startDynamoLocal } from "./dynamo-local";
import { startSqsLocal } from "./sqs-local";
import { startMetricsLocal } from "./metrics-local";
import { withConsole } from "./console";

/** Where scripts/build-console.ts puts the web console (npm start builds it first). */
const CONSOLE_DIR = resolve(import.meta.dirname, "../../packages/console/dist");

const USAGE = `usage: npm start -- [--in-memory] [--port N] [--data-dir DIR]
  --in-memory   keep DynamoDB Local in memory (nothing survives a restart)
  --port N      listen on 127.0.0.1:N (default: $PORT or 8080)
  --data-dir    where state lives (default: .meshplane)`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { "in-memory": { type: "boolean" }, port: { type: "string" }, "data-dir": { type: "string" }, help: { type: "boolean" } },
  });
  if (values.help) return void console.log(USAGE);
  if (!hasJava()) {
    console.error(JAVA_MISSING);
    process.exit(1);
  }
  const port = Number(values.port ?? process.env.PORT ?? "8080");
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`invalid port ${values.port ?? process.env.PORT}`);
  const dataDir = resolve(values["data-dir"] ?? ".meshplane");
  mkdirSync(resolve(dataDir, "dynamodb"), { recursive: true, mode: 0o700 });

  const dynamo = await startDynamoLocal(values["in-memory"] ? {} : { dbPath: resolve(dataDir, "dynamodb") });
  const sqs = await startSqsLocal();
  // In memory, the signing key lives only as long as the process (agents must be re-pinned).
  const keyDir = values["in-memory"] ? mkdtempSync(resolve(tmpdir(), "meshplane-keys-")) : dataDir;
  const env = readEnv({
    ...process.env,
    MESHPLANE_TABLE: "meshplane",
    MESHPLANE_QUEUE_URL: sqs.queueUrl,
    MESHPLANE_DYNAMODB_ENDPOINT: dynamo.endpoint,
    MESHPLANE_SQS_ENDPOINT: sqs.endpoint,
    MESHPLANE_PUBLIC_URL: process.env.MESHPLANE_PUBLIC_URL ?? `http://127.0.0.1:${port}`,
    MESHPLANE_SIGNING_KEY_FILE: resolve(keyDir, "signing-keys.json"),
    // Seals the VirtualMeshes' CA keys in the table; without this file they cannot be opened.
    MESHPLANE_CA_KEK_FILE: resolve(keyDir, "ca-kek"),
  });
  const admin = new DynamoDBClient({ region: env.region, endpoint: dynamo.endpoint, credentials: { accessKeyId: "local", secretAccessKey: "local" } });
  await ensureTable(admin, env.table);
  admin.destroy();
  const runtime = createRuntime(env);
  const first = await bootstrapLocal(runtime.store, new Date());
  // Metrics in the emulator's S3 and a standard queue, in memory: kept only while this process runs.
  // Batches of what arrives within a second (60 s on AWS), compaction every 10 minutes.
  const metrics = await startMetricsLocal({
    endpoint: sqs.endpoint,
    region: env.region,
    suffix: "local",
    log: runtime.worker.log,
    windowMs: 1000,
    compactEveryMs: 600_000,
  });
  // One process serves every tenant here: share it out in turns and hold refusals (on Lambda, more
  // instances start instead). CSRs go to the CA signer in-process: the code its Lambda function runs.
  const app = createApp({ ...runtime.app, csrSigner: inProcessCsrSigner(runtime.caSigner), sharing: SINGLE_PROCESS_SHARING, metrics: metrics.api });
  const sqsClient = new SQSClient({ region: env.region, endpoint: sqs.endpoint, credentials: { accessKeyId: "local", secretAccessKey: "local" } });
  // Agents' push channel on the API's own port: the worker tells it each generation it publishes.
  const hub = new PushHub({ store: runtime.store, now: () => new Date(), log: runtime.worker.log, publicUrl: env.publicUrl ?? `http://127.0.0.1:${port}` });
  const poller = startPoller({ sqs: sqsClient, queueUrl: sqs.queueUrl, handler: createWorker({ ...runtime.worker, push: hub }), log: runtime.worker.log });
  const server = serve({ fetch: withConsole(app.fetch, CONSOLE_DIR), port, hostname: "127.0.0.1" });
  hub.attach(server as never);
  await new Promise<void>((ok, fail) => {
    server.once("listening", ok);
    server.once("error", fail);
  });

  const url = `http://127.0.0.1:${port}`;
  console.log(`meshplane control plane listening on ${url} (state: ${values["in-memory"] ? "in memory" : dataDir})`);
  console.log(`  console: ${url}/ (sign in with a token below)`);
  if (first.operatorToken) console.log(`  operator credential (shown once, stored only as a hash): ${first.operatorToken}`);
  if (first.adminToken) {
    console.log(`  tenant "default" admin token (shown once, stored only as a hash): ${first.adminToken}`);
    console.log(`  try: curl -H "Authorization: Bearer ${first.adminToken}" ${url}/v1/trafficpolicies`);
  }
  if (!first.operatorToken && !first.adminToken) console.log("  using the credentials printed on first start (delete .meshplane/ to start over)");

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping`);
    hub.close();
    await new Promise<void>((ok) => server.close(() => ok()));
    await poller.stop();
    await metrics.stop();
    await sqs.stop();
    if (values["in-memory"]) rmSync(keyDir, { recursive: true, force: true });
    await dynamo.stop();
    process.exit(0);
  };
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
