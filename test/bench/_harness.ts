import { randomUUID } from "node:crypto";
import { mkdtempSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DeleteTableCommand, DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { SQSClient } from "@aws-sdk/client-sqs";
import { serve } from "@hono/node-server";
import { type AppDeps, createApp } from "../../functions/http/app";
import { SINGLE_PROCESS_SHARING } from "../../functions/http/middleware/concurrency";
import { startDynamoLocal } from "../../functions/local/dynamo-local";
import { startSqsLocal } from "../../functions/local/sqs-local";
import { withConsole } from "../../functions/local/console";
import { SqsTranslateQueue } from "../../functions/queue/translate-queue";
import { createLogger } from "../../functions/shared/logger";
import type { AuthorityDeps } from "../../functions/trust/authority";
import { inProcessCsrSigner } from "../../functions/trust/ca-signer/in-process";
import { LocalKeyVault } from "../../functions/trust/key-vault";
import { LocalKeySigner } from "../../functions/signer/local-key";
import { createDocumentClient } from "../../functions/store/client";
import { createStore } from "../../functions/store/index";
import { ensureTable } from "../../functions/store/table";
import { PushHub } from "../../functions/push/hub";
import { ControlPlaneClient } from "../../packages/agent/src/control-plane/client";
import type { ControlPlane } from "../support/control-plane";
import { agentKey } from "../support/agents";
import { createWorker } from "../../functions/translation/batch";
import { startPoller } from "../../functions/translation/poller";
import type { WorkerDeps } from "../../functions/translation/job";

const CREDENTIALS = { accessKeyId: "local", secretAccessKey: "local" };

/** Counts DynamoDB operations by name, as the SDK sends them. */
export class OpCounter {
  readonly counts = new Map<string, number>();
  reset(): void {
    this.counts.clear();
  }
  get(...names: string[]): number {
    return names.reduce((sum, n) => sum + (this.counts.get(n) ?? 0), 0);
  }
}

/**
 * The bench's table: in the DynamoDB Local that BENCH_DYNAMODB_ENDPOINT names, a table of its own,
 * dropped at the end (the bench tier starts one DynamoDB Local for every bench it runs,
 * test/bench/benches.test.ts); otherwise table `meshplane` in a DynamoDB Local of its own.
 */
async function benchTable(): Promise<{ endpoint: string; table: string; stop(): Promise<void> }> {
  const shared = process.env.BENCH_DYNAMODB_ENDPOINT;
  const dynamo = shared ? undefined : await startDynamoLocal();
  const endpoint = shared ?? (dynamo as NonNullable<typeof dynamo>).endpoint;
  const table = shared ? `bench-${randomUUID()}` : "meshplane";
  const admin = new DynamoDBClient({ region: "us-east-1", endpoint, credentials: CREDENTIALS });
  await ensureTable(admin, table);
  return {
    endpoint,
    table,
    async stop() {
      if (dynamo) await dynamo.stop();
      else await admin.send(new DeleteTableCommand({ TableName: table }));
    },
  };
}

/**
 * The local control plane, in this process, for benchmarks: DynamoDB Local (benchTable), the SQS
 * emulator, the API on a real HTTP port, and (optionally) the worker polling the queue as in `npm start`,
 * the metrics store (`metrics`) and the web console built in `consoleDir` in front of the API (the lab).
 */
export async function benchPlane(options: { worker?: boolean; limits?: AppDeps["limits"]; metrics?: AppDeps["metrics"]; consoleDir?: string } = {}) {
  const dynamo = await benchTable();
  const sqs = await startSqsLocal();
  const table = dynamo.table;
  const doc = createDocumentClient({ region: "us-east-1", endpoint: dynamo.endpoint });
  const ops = new OpCounter();
  doc.middlewareStack.add(
    (next, context) => async (args) => {
      const name = String(context.commandName ?? "").replace(/Command$/, "");
      ops.counts.set(name, (ops.counts.get(name) ?? 0) + 1);
      return next(args);
    },
    { step: "initialize", name: "opCounter" },
  );
  const store = createStore({ doc, table, bootstrapTtlMs: 86_400_000 });
  const keyDir = mkdtempSync(join(tmpdir(), "bench-keys-"));
  const signer = LocalKeySigner.open(join(keyDir, "keys.json"));
  const authority: AuthorityDeps = { vault: LocalKeyVault.open(join(keyDir, "ca-kek")), crypto: globalThis.crypto };
  // BENCH_LOG=1 writes the control plane's log to stderr, to see why a bench failed.
  const silent = createLogger({}, process.env.BENCH_LOG ? (line) => process.stderr.write(`${line}\n`) : () => undefined);
  const app = createApp({
    store,
    signer,
    queue: new SqsTranslateQueue({ region: "us-east-1", queueUrl: sqs.queueUrl, endpoint: sqs.endpoint }),
    log: silent,
    authority,
    csrSigner: inProcessCsrSigner({ store, authority, trustedKeys: async () => (await signer.jwks()).keys, log: silent, now: () => new Date() }),
    sharing: SINGLE_PROCESS_SHARING,
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.metrics ? { metrics: options.metrics } : {}),
  });
  // The lab serves the web console in front of the API, as `npm start` does.
  const server = serve({ fetch: options.consoleDir ? withConsole(app.fetch, options.consoleDir) : app.fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise<void>((ok) => server.once("listening", () => ok()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // The push channel on the same server, as `npm start` serves it (docs/push.md).
  const push = new PushHub({ store, now: () => new Date(), log: silent, publicUrl: url, maxPerCluster: 4 });
  push.attach(server as never);
  const worker: WorkerDeps = {
    store,
    signer,
    issuer: url,
    validitySeconds: 7 * 86_400,
    refreshBeforeSeconds: 2 * 86_400,
    log: silent,
    now: () => new Date(),
    authority,
    push,
  };
  const sqsClient = new SQSClient({ region: "us-east-1", endpoint: sqs.endpoint, credentials: CREDENTIALS });
  const poller = options.worker
    ? startPoller({ sqs: sqsClient, queueUrl: sqs.queueUrl, handler: createWorker(worker), log: silent, waitSeconds: 1 })
    : undefined;
  const operatorToken = (await store.tokens.ensureOperator(new Date().toISOString())) as string;
  const request = (method: string, path: string, token: string, body?: unknown) =>
    fetch(url + path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
  return {
    url,
    endpoints: { dynamo: dynamo.endpoint, sqs: sqs.endpoint },
    table,
    store,
    signer,
    ops,
    worker,
    push,
    operatorToken,
    sqs: sqsClient,
    queueUrl: sqs.queueUrl,
    request,
    /** Creates a tenant through the API; answers its admin token. */
    async tenant(name: string): Promise<string> {
      const res = await expectStatus(request("POST", "/v1/tenants", operatorToken, { name }), 201, `POST /v1/tenants ${name}`);
      return ((await res.json()) as { adminToken: string }).adminToken;
    },
    /**
     * Registers `cluster` through the API, then an agent for it with the bootstrap token, as the
     * in-cluster agent does. Answers the agent's client and the incarnation it was told.
     */
    async agent(adminToken: string, tenant: string, cluster: string) {
      const res = await expectStatus(request("POST", "/v1/clusters", adminToken, { name: cluster }), 201, `POST /v1/clusters ${cluster}`);
      const { bootstrapToken } = (await res.json()) as { bootstrapToken: string };
      const key = await agentKey();
      const { incarnation } = await ControlPlaneClient.register(url, bootstrapToken, key.publicJwk, "bench");
      return { client: new ControlPlaneClient({ url, tenant, cluster, key }), incarnation };
    },
    async stop() {
      push.close();
      await poller?.stop();
      await new Promise<void>((ok) => server.close(() => ok()));
      await sqs.stop();
      await dynamo.stop();
    },
  };
}

/**
 * What test/e2e/lab-agents.ts's startLabAgent needs of a control plane (its URL, signer and request),
 * from a bench plane: so benches and the lab run real agents against it.
 */
export function labPlane(plane: Pick<Awaited<ReturnType<typeof benchPlane>>, "url" | "signer" | "request">): ControlPlane {
  return {
    url: plane.url,
    signer: plane.signer,
    request: (method: string, path: string, o: { token?: string; body?: unknown } = {}) => plane.request(method, path, o.token ?? "", o.body),
  } as unknown as ControlPlane;
}

/** `response` if it has `status`; otherwise an error naming `what`, the status and the body. */
export async function expectStatus(response: Response | Promise<Response>, status: number, what: string): Promise<Response> {
  const res = await response;
  if (res.status !== status) throw new Error(`${what}: ${res.status}, expected ${status}: ${(await res.text()).slice(0, 500)}`);
  return res;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}
