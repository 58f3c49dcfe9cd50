/**
 * One tenant floods, another works: tenant B reads its policies one after another, first on a quiet
 * control plane, then while tenant A floods from another process with concurrent reads and plans
 * (bounded, loopback only).
 * Prints B's latency quiet and under the flood, and how A's requests were answered. The goal: B's p99
 * under the flood within 2× its quiet p99, and A refused with 429 once over its budgets.
 */
import { fork } from "node:child_process";
import { join } from "node:path";
import { benchPlane, expectStatus, percentile } from "./_harness";

// 600 samples: the p99 is the sixth-worst, not a single outlier.
const SAMPLES = Number(process.env.SAMPLES ?? 600);
const FLOODERS = Number(process.env.FLOODERS ?? 32);

const plane = await benchPlane();
const policy = (name: string) => ({ apiVersion: "meshplane.dev/v1", kind: "TrafficPolicy", metadata: { name }, spec: { policy: { requestTimeout: "1s" } } });
try {
  const a = await plane.tenant("flooder");
  const b = await plane.tenant("worker");
  for (let i = 0; i < 20; i++) {
    await expectStatus(plane.request("POST", "/v1/trafficpolicies", a, policy(`a-${i}`)), 201, `POST /v1/trafficpolicies a-${i}`);
    await expectStatus(plane.request("POST", "/v1/trafficpolicies", b, policy(`b-${i}`)), 201, `POST /v1/trafficpolicies b-${i}`);
  }
  const sampleB = async (): Promise<{ latencies: number[]; errors: number }> => {
    const latencies: number[] = [];
    let errors = 0;
    for (let i = 0; i < SAMPLES; i++) {
      const start = performance.now();
      const res = await plane.request("GET", "/v1/trafficpolicies", b);
      await res.arrayBuffer();
      latencies.push(performance.now() - start);
      if (res.status !== 200) errors++;
      // B is a person or a pipeline, not a flood: it stays inside its own budget.
      await new Promise((r) => setTimeout(r, 20));
    }
    return { latencies: latencies.sort((x, y) => x - y), errors };
  };
  const warm = await sampleB();
  const quiet = await sampleB();

  // The flood comes from another process, as another tenant's clients would: in this one it would
  // share the event loop with the server and B's client and measure the load generator, not fairness.
  const flooder = fork(join(import.meta.dirname, "_flood.ts"), [plane.url, a, String(FLOODERS)], { execArgv: ["--import", "tsx"] });
  // A flooding process that dies fails the bench instead of leaving it waiting for a message.
  // (It exits 0 only once it has sent them.)
  const died = new Promise<never>((_, fail) =>
    flooder.on("exit", (code, signal) => code !== 0 && fail(new Error(`the flooding process failed (${signal ?? code}) before sending its counts`))),
  );
  await Promise.race([new Promise((ok) => flooder.once("message", ok)), died]); // loaded, every loop answered once
  await new Promise((r) => setTimeout(r, 2000)); // past its burst, at its budgets' sustained rates
  const loud = await sampleB();
  const done = new Promise<Record<string, number>>((ok) => flooder.once("message", (m) => ok(m as Record<string, number>)));
  flooder.send("stop");
  const counts = new Map(Object.entries(await Promise.race([done, died])).map(([status, n]) => [Number(status), n]));
  const figures = {
    bench: "fairness",
    samples: SAMPLES,
    flooders: FLOODERS,
    quiet_p50_ms: Number(percentile(quiet.latencies, 50).toFixed(2)),
    quiet_p99_ms: Number(percentile(quiet.latencies, 99).toFixed(2)),
    flood_p50_ms: Number(percentile(loud.latencies, 50).toFixed(2)),
    flood_p99_ms: Number(percentile(loud.latencies, 99).toFixed(2)),
    p99_ratio: Number((percentile(loud.latencies, 99) / percentile(quiet.latencies, 99)).toFixed(2)),
    b_errors: warm.errors + quiet.errors + loud.errors,
    a_requests: [...counts.values()].reduce((s, n) => s + n, 0),
    a_by_status: Object.fromEntries([...counts].sort(([x], [y]) => x - y)),
  };
  // Every answer checked: B, inside its budget, is always served; A is served or refused, nothing else
  // (status 0: a request of A's that got no answer at all).
  if (figures.b_errors > 0) throw new Error(`tenant B got ${figures.b_errors} answers other than 200`);
  const unexpected = [...counts.keys()].filter((status) => status !== 200 && status !== 429);
  if (unexpected.length > 0) throw new Error(`tenant A got answers other than 200 and 429: ${JSON.stringify(figures.a_by_status)}`);
  console.log(
    `tenant B p99: ${figures.quiet_p99_ms} ms quiet, ${figures.flood_p99_ms} ms while A floods (${figures.p99_ratio}×); A: ${JSON.stringify(figures.a_by_status)}`,
  );
  console.log(JSON.stringify(figures));
} finally {
  await plane.stop();
}
