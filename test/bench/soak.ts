/**
 * Many agents against the local control plane: AGENTS simulated agents (each its own cluster, its own
 * key and JWTs, as the real agent) poll their snapshot every INTERVAL_S seconds, with jitter, for
 * DURATION_S seconds. Prints requests per second, latency p50/p99, errors by status and the process
 * RSS (server and simulated agents share the process).
 */
import type { ControlPlaneClient } from "../../packages/agent/src/control-plane/client";
import { benchPlane, percentile } from "./_harness";

const AGENTS = Number(process.env.AGENTS ?? 1000);
const INTERVAL_S = Number(process.env.INTERVAL_S ?? 15);
const DURATION_S = Number(process.env.DURATION_S ?? 60);

// Real agent budgets; registering the fleet (1,000 cluster creations) is not what is measured, so
// the tenant's write budget is raised for it.
const plane = await benchPlane({ limits: { write: { limit: 1_000_000, windowMs: 10_000, lease: 100 } } });
try {
  const admin = await plane.tenant("soak");
  const registerStart = performance.now();
  const clients: ControlPlaneClient[] = [];
  // Registration as a fleet rolling out: a few at a time.
  let nextAgent = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (nextAgent < AGENTS) {
        const i = nextAgent++;
        clients[i] = (await plane.agent(admin, "soak", `c-${i}`)).client;
      }
    }),
  );
  const registerSeconds = (performance.now() - registerStart) / 1000;
  const latencies: number[] = [];
  const errors = new Map<string, number>();
  const end = performance.now() + DURATION_S * 1000;
  let rssMax = 0;
  const rssTimer = setInterval(() => (rssMax = Math.max(rssMax, process.memoryUsage.rss())), 500);
  const start = performance.now();
  await Promise.all(
    clients.map(async (client) => {
      // Agents start spread over one interval, as a fleet does.
      await new Promise((r) => setTimeout(r, Math.random() * INTERVAL_S * 1000));
      while (performance.now() < end) {
        const t = performance.now();
        try {
          // No worker runs, so no snapshot is ever published: the answer is "none yet" (404).
          const answer = await client.snapshot();
          if (!answer.changed || answer.jws !== undefined) errors.set("unexpected", (errors.get("unexpected") ?? 0) + 1);
        } catch (error) {
          const key = String((error as { status?: number }).status ?? "network");
          errors.set(key, (errors.get(key) ?? 0) + 1);
        }
        latencies.push(performance.now() - t);
        await new Promise((r) => setTimeout(r, INTERVAL_S * 1000 * (0.9 + Math.random() * 0.2)));
      }
    }),
  );
  clearInterval(rssTimer);
  const seconds = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  const figures = {
    bench: "soak",
    agents: AGENTS,
    interval_s: INTERVAL_S,
    duration_s: Number(seconds.toFixed(1)),
    register_s: Number(registerSeconds.toFixed(1)),
    requests: latencies.length,
    requests_per_s: Number((latencies.length / seconds).toFixed(1)),
    p50_ms: Number(percentile(latencies, 50).toFixed(2)),
    p99_ms: Number(percentile(latencies, 99).toFixed(2)),
    errors: Object.fromEntries(errors),
    rss_max_mb: Math.round(rssMax / 1024 / 1024),
  };
  console.log(
    `${AGENTS} agents polling every ${INTERVAL_S} s for ${figures.duration_s} s: ${figures.requests_per_s} req/s, p50 ${figures.p50_ms} ms, p99 ${figures.p99_ms} ms`,
  );
  // Polls within every agent's budget are all answered: any error is the control plane failing.
  if (errors.size > 0) throw new Error(`polls answered with errors (by status): ${JSON.stringify(figures.errors)}`);
  console.log(JSON.stringify(figures));
} finally {
  await plane.stop();
}
