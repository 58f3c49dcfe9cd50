import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { CreateQueueCommand, DeleteMessageCommand, ReceiveMessageCommand, SQSClient } from "@aws-sdk/client-sqs";
import { serve } from "@hono/node-server";
import { inject } from "vitest";
import { type AppDeps, createApp } from "../../functions/http/app";
import { SqsTranslateQueue } from "../../functions/queue/translate-queue";
import { type Logger, createLogger } from "../../functions/shared/logger";
import { createDocumentClient } from "../../functions/store/client";
import { type Store, createStore } from "../../functions/store/index";
import { ensureTable } from "../../functions/store/table";
import { LocalKeySigner } from "../../functions/signer/local-key";
import type { AuthorityDeps } from "../../functions/trust/authority";
import { inProcessCsrSigner } from "../../functions/trust/ca-signer/in-process";
import { LocalKeyVault } from "../../functions/trust/key-vault";
import { PushHub } from "../../functions/push/hub";
import { createWorker } from "../../functions/translation/batch";
import type { WorkerDeps } from "../../functions/translation/job";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const REGION = "us-east-1";
const LOCAL_CREDENTIALS = { accessKeyId: "local", secretAccessKey: "local" };

export interface ReceivedJob {
  body: unknown;
  groupId?: string;
  dedupId?: string;
}

export interface ControlPlane {
  url: string;
  store: Store;
  table: string;
  operatorToken: string;
  /** The clock the app sees; tests move it to expire tokens. */
  clock: { now: Date };
  logs: string[];
  /** Creates a tenant through the operator API and returns its admin token. */
  tenant(name: string): Promise<string>;
  /** Drains the translate queue (what the API enqueued since the last call). */
  jobs(): Promise<ReceivedJob[]>;
  /**
   * Runs the real worker handler over what is on the queue, as Lambda's event source would (failed
   * records stay on the queue); returns how many records were handled and how many failed.
   */
  work(): Promise<{ handled: number; failed: number }>;
  /**
   * `work`, repeated until it receives something — a record that failed becomes visible again only
   * once its 1 s visibility timeout has run out, however long the emulator then takes — and throws
   * after `ms` without one.
   */
  workRedelivered(ms?: number): Promise<{ handled: number; failed: number }>;
  signer: LocalKeySigner;
  worker: WorkerDeps;
  /** Agents' push channel on the same server (docs/push.md). */
  push: PushHub;
  queueUrl: string;
  sqs: SQSClient;
  request(method: string, path: string, options?: { token?: string; body?: unknown; headers?: Record<string, string>; raw?: string }): Promise<Response>;
  stop(): Promise<void>;
}

/** Budgets no functional test reaches; rate limiting has its own tests. */
const TEST_LIMITS: AppDeps["limits"] = Object.fromEntries(
  (["read", "write", "plan", "agent", "metrics", "authoring", "operator", "refused"] as const).map((cls) => [
    cls,
    { limit: 1_000_000, windowMs: 10_000, lease: 100 },
  ]),
);

/**
 * A real control plane for one test file: a fresh table in the shared DynamoDB Local, a fresh FIFO
 * queue in the shared SQS emulator, and the hono app on a real HTTP port.
 */
export async function startControlPlane(
  options: { table?: string; log?: Logger; limits?: AppDeps["limits"]; metrics?: AppDeps["metrics"] } = {},
): Promise<ControlPlane> {
  const dynamoEndpoint = inject("dynamoEndpoint");
  const sqsEndpoint = inject("sqsEndpoint");
  const suffix = randomBytes(4).toString("hex");
  const table = options.table ?? `meshplane-${suffix}`;
  const admin = new DynamoDBClient({ region: REGION, endpoint: dynamoEndpoint, credentials: LOCAL_CREDENTIALS });
  if (!options.table) await ensureTable(admin, table);
  admin.destroy();
  const sqs = new SQSClient({ region: REGION, endpoint: sqsEndpoint, credentials: LOCAL_CREDENTIALS });
  const queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: `translate-${suffix}.fifo`, Attributes: { FifoQueue: "true" } }))).QueueUrl as string;
  const doc = createDocumentClient({ region: REGION, endpoint: dynamoEndpoint });
  const store = createStore({ doc, table, bootstrapTtlMs: 86_400_000 });
  // Real time, shifted when a test sets `clock.now` (to expire tokens); never frozen.
  let offsetMs = 0;
  const clock = {
    get now(): Date {
      return new Date(Date.now() + offsetMs);
    },
    set now(date: Date) {
      offsetMs = date.getTime() - Date.now();
    },
  };
  const logs: string[] = [];
  const keyDir = mkdtempSync(join(tmpdir(), "meshplane-keys-"));
  const signer = LocalKeySigner.open(join(keyDir, "keys.json"));
  const authority: AuthorityDeps = { vault: LocalKeyVault.open(join(keyDir, "ca-kek")), crypto: globalThis.crypto };
  const log = options.log ?? createLogger({ service: "api" }, (line) => logs.push(line));
  const app = createApp({
    store,
    signer,
    queue: new SqsTranslateQueue({ region: REGION, queueUrl, endpoint: sqsEndpoint }),
    log,
    authority,
    csrSigner: inProcessCsrSigner({
      store,
      authority,
      trustedKeys: async () => (await signer.jwks()).keys,
      log: log.child({ service: "ca-signer" }),
      now: () => clock.now,
    }),
    now: () => clock.now,
    // Suites that walk every route for several tenants would spend a real budget in seconds; the
    // budgets themselves are tested with explicit limits (rate-limits.test.ts).
    limits: options.limits ?? TEST_LIMITS,
    ...(options.metrics ? { metrics: options.metrics } : {}),
  });
  const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise<void>((ok) => server.once("listening", () => ok()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const push = new PushHub({ store, now: () => clock.now, log, publicUrl: url });
  push.attach(server as never);
  const worker: WorkerDeps = {
    store,
    signer,
    issuer: url,
    validitySeconds: 7 * 86_400,
    refreshBeforeSeconds: 2 * 86_400,
    log: log.child({ service: "worker" }),
    now: () => clock.now,
    authority,
    push,
  };
  const handler = createWorker(worker);
  const operatorToken = options.table ? "" : ((await store.tokens.ensureOperator(clock.now.toISOString())) as string);

  const request: ControlPlane["request"] = (method, path, o = {}) =>
    fetch(url + path, {
      method,
      headers: {
        ...(o.token ? { authorization: `Bearer ${o.token}` } : {}),
        ...(o.body !== undefined || o.raw !== undefined ? { "content-type": "application/json" } : {}),
        ...o.headers,
      },
      ...(o.raw !== undefined ? { body: o.raw } : o.body !== undefined ? { body: JSON.stringify(o.body) } : {}),
    });

  const plane: ControlPlane = {
    url,
    store,
    signer,
    worker,
    push,
    queueUrl,
    sqs,
    async work() {
      let handled = 0;
      let failed = 0;
      for (;;) {
        const page = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: queueUrl,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: 0,
            VisibilityTimeout: 1,
            MessageSystemAttributeNames: ["All"],
          }),
        );
        const messages = page.Messages ?? [];
        if (messages.length === 0) return { handled, failed };
        const records = messages.map((m) => ({
          messageId: m.MessageId as string,
          receiptHandle: m.ReceiptHandle as string,
          body: m.Body as string,
          attributes: m.Attributes as never,
          messageAttributes: {},
          md5OfBody: "",
          eventSource: "aws:sqs",
          eventSourceARN: queueUrl,
          awsRegion: REGION,
        }));
        const { batchItemFailures } = await handler({ Records: records });
        const bad = new Set(batchItemFailures.map((f) => f.itemIdentifier));
        for (const r of records) {
          handled++;
          if (bad.has(r.messageId)) failed++;
          else await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: r.receiptHandle }));
        }
        if (bad.size > 0) return { handled, failed };
      }
    },
    async workRedelivered(ms = 10_000) {
      const deadline = Date.now() + ms;
      for (;;) {
        const result = await plane.work();
        if (result.handled > 0) return result;
        if (Date.now() > deadline) throw new Error(`no record was delivered again within ${ms} ms`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    table,
    operatorToken,
    clock,
    logs,
    request,
    async tenant(name) {
      const res = await request("POST", "/v1/tenants", { token: operatorToken, body: { name } });
      if (res.status !== 201) throw new Error(`tenant ${name}: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { adminToken: string }).adminToken;
    },
    async jobs() {
      const out: ReceivedJob[] = [];
      for (;;) {
        const page = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: queueUrl,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: 0,
            MessageSystemAttributeNames: ["MessageGroupId", "MessageDeduplicationId"],
          }),
        );
        const messages = page.Messages ?? [];
        if (messages.length === 0) return out;
        for (const m of messages) {
          out.push({
            body: JSON.parse(m.Body as string),
            ...(m.Attributes?.MessageGroupId ? { groupId: m.Attributes.MessageGroupId } : {}),
            ...(m.Attributes?.MessageDeduplicationId ? { dedupId: m.Attributes.MessageDeduplicationId } : {}),
          });
          await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: m.ReceiptHandle as string }));
        }
      }
    },
    async stop() {
      push.close();
      await new Promise<void>((ok) => server.close(() => ok()));
      sqs.destroy();
    },
  };
  return plane;
}

/** A valid document of each kind, for tests to vary. */
export function trafficPolicy(name: string, spec: Record<string, unknown> = {}, labels?: Record<string, string>) {
  return {
    apiVersion: "meshplane.dev/v1",
    kind: "TrafficPolicy",
    metadata: { name, ...(labels ? { labels } : {}) },
    spec: { destinationSelector: [{ kubeServiceMatcher: { namespaces: ["bookinfo"] } }], policy: { requestTimeout: "5s" }, ...spec },
  };
}

export function accessPolicy(name: string, spec: Record<string, unknown> = {}) {
  return {
    apiVersion: "meshplane.dev/v1",
    kind: "AccessPolicy",
    metadata: { name },
    spec: { sourceSelector: [{ kubeIdentityMatcher: { namespaces: ["bookinfo"] } }], allowedMethods: ["GET"], ...spec },
  };
}

export function virtualMesh(name: string, spec: Record<string, unknown> = {}) {
  return {
    apiVersion: "meshplane.dev/v1",
    kind: "VirtualMesh",
    metadata: { name },
    spec: { meshes: [{ name: "istiod-istio--system-cluster-1" }], mtlsConfig: { shared: {} }, ...spec },
  };
}
