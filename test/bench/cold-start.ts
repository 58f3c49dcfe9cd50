/**
 * Lambda cold start, approximated locally: bundle every function as the stack does
 * (infra/lib/bundle.ts: ESM with code splitting, minified, Node 22 target, source maps), report each
 * bundle's size — what loads with the entry and what only on demand — then time a fresh Node process
 * from start to the end of its first event, for the API and the worker, against DynamoDB Local
 * (warmed up first).
 * Node runs with --enable-source-maps, as on Lambda.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FUNCTION_ENTRIES, type FunctionName } from "../../infra/lib/entries";
import { type FunctionBundle, bundleFunction, describeBundle } from "../support/bundle";
import { benchPlane } from "./_harness";

const ROOT = join(import.meta.dirname, "../..");
const out = mkdtempSync(join(tmpdir(), "meshplane-bundles-"));
const kib = (bytes: number) => Math.round(bytes / 1024);

interface FirstEvent {
  load_ms: number;
  first_event_ms: number;
  status: unknown;
}

/** Runs `event` through a fresh Node process's handler from `bundle`; times from process start. */
function firstEvent(bundle: FunctionBundle, event: unknown, env: NodeJS.ProcessEnv): FirstEvent {
  const script = join(out, `run-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(
    script,
    `const t0 = performance.now();
     const { handler } = await import(${JSON.stringify(join(bundle.dir, "index.mjs"))});
     const loaded = performance.now();
     const result = await handler(${JSON.stringify(event)}, {});
     console.log(JSON.stringify({ load_ms: loaded - t0, first_event_ms: performance.now() - t0, status: result.statusCode ?? (result.batchItemFailures ? "batch:" + result.batchItemFailures.length : "?") }));`,
  );
  const run = spawnSync(process.execPath, ["--enable-source-maps", script], { env, encoding: "utf8" });
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout.trim().split("\n").pop() as string) as FirstEvent;
}

const plane = await benchPlane();
try {
  // DynamoDB Local runs on a JVM whose first requests are slow in a way DynamoDB's are not: warm it
  // with the calls the measured events make, so the figures are the functions' own.
  for (let i = 0; i < 5; i++) await plane.request("GET", "/v1/tenants", plane.operatorToken);
  const bundles = {} as Record<FunctionName, FunctionBundle>;
  for (const [name, entry] of Object.entries(FUNCTION_ENTRIES) as [FunctionName, string][]) {
    bundles[name] = await bundleFunction(join(ROOT, entry), join(out, name));
  }
  const env = {
    ...process.env,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
    MESHPLANE_TABLE: plane.table,
    MESHPLANE_QUEUE_URL: plane.queueUrl,
    MESHPLANE_SIGNING_KEY_FILE: join(out, "keys.json"),
    MESHPLANE_CA_KEK_FILE: join(out, "ca-kek"),
    MESHPLANE_DYNAMODB_ENDPOINT: plane.endpoints.dynamo,
  };
  const api = firstEvent(
    bundles.api,
    {
      version: "2.0",
      routeKey: "$default",
      rawPath: "/v1/tenants",
      rawQueryString: "",
      headers: { authorization: `Bearer ${plane.operatorToken}` },
      requestContext: {
        http: { method: "GET", path: "/v1/tenants", protocol: "HTTP/1.1", sourceIp: "127.0.0.1", userAgent: "bench" },
        requestId: "r",
        routeKey: "$default",
        stage: "$default",
        timeEpoch: Date.now(),
      },
      isBase64Encoded: false,
    },
    env,
  );
  const worker = firstEvent(
    bundles.worker,
    {
      Records: [
        {
          messageId: "m1",
          receiptHandle: "r",
          body: JSON.stringify({ tenantId: "nobody", revision: 1 }),
          attributes: { MessageGroupId: "nobody" },
          messageAttributes: {},
          md5OfBody: "",
          eventSource: "aws:sqs",
          eventSourceARN: "arn",
          awsRegion: "us-east-1",
        },
      ],
    },
    env,
  );
  // A cold start that fails is no figure: the API lists the operator's tenants, the worker finds nothing to translate for a tenant that does not exist.
  if (api.status !== 200) throw new Error(`the API bundle answered its first event ${String(api.status)}, not 200`);
  if (worker.status !== "batch:0") throw new Error(`the worker bundle answered its first event ${String(worker.status)}, not batch:0 (no failed record)`);
  const sizes = Object.fromEntries(
    Object.entries(bundles).flatMap(([name, b]) => [
      [`${name}_initial_kb`, kib(b.initialBytes)],
      [`${name}_total_kb`, kib(b.totalBytes)],
      [`${name}_files`, b.files.length],
    ]),
  );
  const figures = {
    bench: "cold-start",
    ...sizes,
    api_load_ms: Math.round(api.load_ms),
    api_first_event_ms: Math.round(api.first_event_ms),
    api_status: api.status,
    worker_load_ms: Math.round(worker.load_ms),
    worker_first_event_ms: Math.round(worker.first_event_ms),
    worker_status: worker.status,
  };
  for (const [name, b] of Object.entries(bundles)) console.log(describeBundle(name, b));
  console.log(
    `first event: api ${figures.api_first_event_ms} ms (loaded after ${figures.api_load_ms} ms); worker ${figures.worker_first_event_ms} ms (loaded after ${figures.worker_load_ms} ms)`,
  );
  console.log(JSON.stringify(figures));
} finally {
  await plane.stop();
}
