/**
 * The push channel at scale on loopback: `npm run bench -- push [agents]` (default 1,000). Registers
 * that many clusters with real agent keys, opens one channel each (a real agent JWT bound to GET on
 * every upgrade), then publishes a generation to every cluster at once (a change that reaches them
 * all) and times until the last agent has heard of it. Agents and control plane share this process:
 * memory is reported before and with the connections. Last line:
 * {"bench":"push","agents":…,"connect_all_ms":…,"fanout_all_ms":…,"rss_mib_before":…,"rss_mib_connected":…}.
 */
import { performance } from "node:perf_hooks";
import { pushUrl } from "@meshplane/core";
import { WebSocket } from "ws";
import type { ControlPlaneClient } from "../../packages/agent/src/control-plane/client";
import { benchPlane, percentile } from "./_harness";

const AGENTS = Number(process.argv[2] ?? 1000);
const rss = () => Math.round(process.memoryUsage().rss / 1024 / 1024);

const plane = await benchPlane({
  limits: {
    agent: { limit: 1e9, windowMs: 10_000, lease: 1000 },
    write: { limit: 1e9, windowMs: 10_000, lease: 1000 },
    read: { limit: 1e9, windowMs: 10_000, lease: 1000 },
  },
});
const sockets: WebSocket[] = [];
try {
  const admin = await plane.tenant("bench");
  const registering = performance.now();
  const clients: ControlPlaneClient[] = [];
  for (let i = 0; i < AGENTS; i += 20) {
    clients.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(20, AGENTS - i) }, async (_, j) => (await plane.agent(admin, "bench", `c-${String(i + j).padStart(5, "0")}`)).client),
      )),
    );
  }
  console.log(`${AGENTS} clusters registered in ${Math.round((performance.now() - registering) / 1000)} s`);
  const before = rss();
  const received = new Map<string, number>();
  let target = -1;
  const connecting = performance.now();
  for (let i = 0; i < clients.length; i += 50) {
    await Promise.all(
      clients.slice(i, i + 50).map(
        async (client, j) =>
          new Promise<void>((ok, fail) => {
            const name = `c-${String(i + j).padStart(5, "0")}`;
            void client.token("GET").then((token) => {
              const ws = new WebSocket(pushUrl(plane.url), { headers: { authorization: `Bearer ${token}` } });
              sockets.push(ws);
              ws.on("message", (data) => {
                const m = JSON.parse(String(data)) as { type: string; generation?: number };
                if (m.type === "generation" && m.generation === target && !received.has(name)) received.set(name, performance.now());
              });
              ws.once("open", () => ok());
              ws.once("unexpected-response", (_req, res) => fail(new Error(`refused ${res.statusCode}`)));
              ws.once("error", fail);
            });
          }),
      ),
    );
  }
  const connectMs = performance.now() - connecting;
  await new Promise((r) => setTimeout(r, 500));
  const connected = rss();
  console.log(`${plane.push.size} channels open in ${Math.round(connectMs)} ms; RSS ${before} → ${connected} MiB (agents and control plane in one process)`);
  // A change that reaches every cluster: the worker would call this once per published cluster.
  target = 42;
  const published = performance.now();
  for (let i = 0; i < AGENTS; i++) plane.push.published("bench", `c-${String(i).padStart(5, "0")}`, target);
  const deadline = Date.now() + 30_000;
  while (received.size < AGENTS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  const delays = [...received.values()].map((t) => t - published).sort((a, b) => a - b);
  if (plane.push.size !== AGENTS) throw new Error(`${plane.push.size} channels open, not ${AGENTS}`);
  if (received.size < AGENTS) throw new Error(`${AGENTS - received.size} of ${AGENTS} agents never heard of generation ${target} within 30 s`);
  console.log(
    `published to ${AGENTS}: all heard it in ${Math.round(delays.at(-1) ?? Number.NaN)} ms (p50 ${Math.round(percentile(delays, 50))} ms), ${received.size} of ${AGENTS}`,
  );
  console.log(
    JSON.stringify({
      bench: "push",
      agents: AGENTS,
      open: plane.push.size,
      connect_all_ms: Math.round(connectMs),
      fanout_p50_ms: Math.round(percentile(delays, 50)),
      fanout_all_ms: Math.round(delays.at(-1) ?? Number.NaN),
      heard: received.size,
      rss_mib_before: before,
      rss_mib_connected: connected,
    }),
  );
} finally {
  for (const ws of sockets) ws.terminate();
  await plane.stop();
}
