/**
 * Lambda cold start, approximated locally: bundle the API and worker entry points as the stack
 * does (esbuild, ESM, minified, Node 22 target), then time a fresh Node process from start to the
 * end of its first event, against DynamoDB Local. Reports bundle sizes and first-event times.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bundleEntry } from "../support/bundle";
import { benchPlane } from "./_harness";

const out = mkdtempSync(join(tmpdir(), "meshplane-bundles-"));

const bundle = (entry: string, name: string) => bundleEntry(entry, join(out, `${name}.mjs`), "node22");

const kb = (f: string) => Math.round(statSync(f).size / 1024);

const plane = await benchPlane();
try {
  const api = await bundle("functions/api/handler.ts", "api");
  const worker = await bundle("functions/worker/lambda.ts", "worker");
  const env = {
    ...process.env,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
    MESHPLANE_TABLE: "meshplane",
    MESHPLANE_QUEUE_URL: plane.queueUrl,
    MESHPLANE_SIGNING_KEY_FILE: join(out, "keys.json"),
    MESHPLANE_CA_KEK_FILE: join(out, "ca-kek"),
  };
  const first = (bundleFile: string, event: unknown, extraEnv: Record<string, string>) => {
    const script = join(out, `run-${Math.random().toString(36).slice(2)}.mjs`);
    writeFileSync(
      script,
      `const t0 = performance.now();
       const { handler } = await import(${JSON.stringify(bundleFile)});
       const loaded = performance.now();
       const result = await handler(${JSON.stringify(event)}, {});
       console.log(JSON.stringify({ load_ms: loaded - t0, first_event_ms: performance.now() - t0, status: result.statusCode ?? (result.batchItemFailures ? "batch:" + result.batchItemFailures.length : "?") }));`,
    );
    const started = performance.now();
    const run = spawnSync(process.execPath, [script], { env: { ...env, ...extraEnv }, encoding: "utf8" });
    const wall = performance.now() - started;
    if (run.status !== 0) throw new Error(run.stderr);
    return { ...(JSON.parse(run.stdout.trim().split("\n").pop() as string) as { load_ms: number; first_event_ms: number; status: unknown }), process_ms: wall };
  };
  const dynamoEndpoint = plane.endpoints.dynamo;
  const apiRun = first(api, {
    version: "2.0", routeKey: "$default", rawPath: "/v1/tenants", rawQueryString: "", headers: { authorization: `Bearer ${plane.operatorToken}` },
    requestContext: { http: { method: "GET", path: "/v1/tenants", protocol: "HTTP/1.1", sourceIp: "127.0.0.1", userAgent: "bench" }, requestId: "r", routeKey: "$default", stage: "$default", timeEpoch: Date.now() },
    isBase64Encoded: false,
  }, { MESHPLANE_DYNAMODB_ENDPOINT: dynamoEndpoint });
  const workerRun = first(worker, {
    Records: [{ messageId: "m1", receiptHandle: "r", body: JSON.stringify({ tenantId: "nobody", revision: 1 }), attributes: { MessageGroupId: "nobody" }, messageAttributes: {}, md5OfBody: "", eventSource: "aws:sqs", eventSourceARN: "arn", awsRegion: "us-east-1" }],
  }, { MESHPLANE_DYNAMODB_ENDPOINT: dynamoEndpoint });
  const figures = {
    bench: "cold-start",
    api_bundle_kb: kb(api),
    worker_bundle_kb: kb(worker),
    api_load_ms: Math.round(apiRun.load_ms),
    api_first_event_ms: Math.round(apiRun.first_event_ms),
    api_status: apiRun.status,
    worker_load_ms: Math.round(workerRun.load_ms),
    worker_first_event_ms: Math.round(workerRun.first_event_ms),
    worker_status: workerRun.status,
  };
  console.log(`api ${figures.api_bundle_kb} KiB: first event after ${figures.api_first_event_ms} ms; worker ${figures.worker_bundle_kb} KiB: ${figures.worker_first_event_ms} ms`);
  console.log(JSON.stringify(figures));
} finally {
  await plane.stop();
}
