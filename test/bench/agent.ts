/**
 * The agent on a real kube-apiserver: RSS and CPU when idle, and with 1,000 watched pods and 500
 * managed objects; the time to apply 500 objects; and propagation from an API write to the object
 * existing in the cluster, at the default poll interval (15 s + up to 20 % jitter) with the push
 * channel on, as agents run by default (docs/push.md). Smaller runs: PODS, OBJECTS, WRITES,
 * SAMPLE_MS (each usage sample, 30 s) and SPREAD_MS (writes land within it after the last, 18 s).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { Canonicalizer, SNAPSHOT_TYPE, type SnapshotPayload, snapshotAudience } from "@meshplane/core";
import { type LabAgent, startLabAgent } from "../e2e/lab-agents";
import { FIXTURES } from "../support/agents";
import { benchPlane, expectStatus, labPlane, percentile } from "./_harness";

const ROOT = join(import.meta.dirname, "../..");
const WRITES = Number(process.env.WRITES ?? 8);
const PODS = Number(process.env.PODS ?? 1000);
const OBJECTS = Number(process.env.OBJECTS ?? 500);
const SAMPLE_MS = Number(process.env.SAMPLE_MS ?? 30_000);
const SPREAD_MS = Number(process.env.SPREAD_MS ?? 18_000);
const TICKS = 100; // /proc stat clock ticks per second on Linux

function usage(pid: number): { rssMiB: number; cpuSeconds: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const rss = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return { rssMiB: rss, cpuSeconds: (Number(fields[11]) + Number(fields[12])) / TICKS };
}

/**
 * The environment the agent image sets (the ENV lines of packages/agent/Dockerfile's last stage), so
 * the agent here runs with the runtime settings it ships with.
 */
function imageEnv(): Record<string, string> {
  const dockerfile = readFileSync(join(ROOT, "packages/agent/Dockerfile"), "utf8");
  const env: Record<string, string> = {};
  for (const [, line] of dockerfile.slice(dockerfile.lastIndexOf("\nFROM ")).matchAll(/^ENV\s+(.+)$/gm)) {
    for (const [, key, quoted, bare] of (line as string).matchAll(/(\w+)=(?:"([^"]*)"|(\S+))/g)) env[key as string] = (quoted ?? bare) as string;
  }
  return env;
}

/** Mean CPU (millicores) and final RSS of `pid` over `ms`. */
async function sample(pid: number, ms: number): Promise<{ mcpu: number; rssMiB: number }> {
  const a = usage(pid);
  await new Promise((r) => setTimeout(r, ms));
  const b = usage(pid);
  return { mcpu: Math.round(((b.cpuSeconds - a.cpuSeconds) / (ms / 1000)) * 1000 * 10) / 10, rssMiB: Math.round(b.rssMiB) };
}

/** Throws unless the kube-apiserver answered 201. */
function created(res: { status: number; body: unknown }, what: string): void {
  if (res.status !== 201) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
}

const plane = await benchPlane({ worker: true });
let agent: LabAgent | undefined;
try {
  const admin = await plane.tenant("bench");
  const cp = labPlane(plane);
  // The agent process inherits this process's environment: the image's, for as long as it starts.
  const env = imageEnv();
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  try {
    agent = await startLabAgent(cp, admin, "cluster-east", join(FIXTURES, "istio-bookinfo.yaml"), [
      "--poll-interval=15",
      "--poll-jitter=0.2",
      "--resync-interval=300",
    ]);
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
  console.log(`agent environment from the image: ${JSON.stringify(env)}`);
  const pid = agent.process.pid as number;
  await agent.healthPort();
  const metric = async (name: string) => Number(new RegExp(`^${name} (\\d+)`, "m").exec(await agent!.metrics())?.[1] ?? 0);
  while ((await metric("meshplane_agent_discovery_reports_total")) < 1) await new Promise((r) => setTimeout(r, 200));
  const idle = await sample(pid, SAMPLE_MS);
  console.log(`idle: ${idle.rssMiB} MiB RSS, ${idle.mcpu} mCPU`);

  // PODS pods to watch (a Deployment's ReplicaSet with 1,000 replicas, as a controller would leave them).
  const c = agent.cluster;
  created(await c.request("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "load" } }), "namespace load");
  for (let i = 0; i < PODS; i++) {
    created(
      await c.request("POST", "/api/v1/namespaces/load/pods", {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: `load-${i}`, namespace: "load", labels: { app: "load" }, annotations: { "sidecar.istio.io/status": "{}" } },
        spec: {
          containers: [
            { name: "app", image: "example/app:1" },
            { name: "istio-proxy", image: "docker.io/istio/proxyv2:1.24.2" },
          ],
        },
      }),
      `pod load-${i}`,
    );
  }

  // OBJECTS managed objects, in one signed snapshot published as the control plane would.
  const clusterHead = await plane.store.snapshots.head("bench", "cluster-east", true);
  const head = clusterHead?.snapshot;
  const labels = { "app.kubernetes.io/managed-by": "meshplane", "meshplane.dev/tenant": "bench", "meshplane.dev/cluster": "cluster-east" };
  const objects = Array.from({ length: OBJECTS }, (_, i) => ({
    apiVersion: "networking.istio.io/v1",
    kind: "VirtualService",
    metadata: { name: `vs-${i}`, namespace: "load", labels, annotations: { "meshplane.dev/parents": "[]" } },
    spec: { hosts: [`svc-${i}.load.svc.cluster.local`], http: [{ route: [{ destination: { host: `svc-${i}.load.svc.cluster.local` } }], timeout: "5s" }] },
  }));
  const hash = new Canonicalizer().contentHash(objects, []);
  const generation = (head?.generation ?? 0) + 1;
  const now = Math.floor(Date.now() / 1000);
  const payload: SnapshotPayload = {
    iss: plane.url,
    aud: snapshotAudience("bench", "cluster-east", clusterHead?.incarnation),
    tenant: "bench",
    cluster: "cluster-east",
    generation,
    iat: now,
    exp: now + 86_400,
    hash,
    objects: objects as never,
    certificates: [],
  };
  const jws = await plane.signer.sign(Buffer.from(JSON.stringify(payload)), SNAPSHOT_TYPE);
  const published = performance.now();
  await plane.store.snapshots.write(
    "bench",
    "cluster-east",
    head,
    { generation, hash, signedAt: new Date().toISOString(), exp: payload.exp, ...(clusterHead?.incarnation ? { incarnation: clusterHead.incarnation } : {}) },
    gzipSync(jws),
  );
  // As the worker does after publishing: tell the agent's push channel.
  plane.push.published("bench", "cluster-east", generation);
  let seen = 0;
  while ((await metric("meshplane_agent_applied_generation")) < generation) {
    if (seen === 0 && (await metric("meshplane_agent_managed_objects")) > 0) seen = performance.now();
    await new Promise((r) => setTimeout(r, 50));
  }
  const applyMs = Math.round(performance.now() - published);
  // The agent's own measure of the apply step (without the wait for its next poll).
  // Its log line reaches this process through a pipe, possibly after the metric moved: wait for it.
  const logged = new RegExp(`"generation":${generation},"applyMs":(\\d+)`);
  let applyStepMs = -1;
  for (const until = Date.now() + 10_000; applyStepMs < 0 && Date.now() < until; await new Promise((r) => setTimeout(r, 50)))
    applyStepMs = Number(logged.exec(agent.output())?.[1] ?? -1);
  if (applyStepMs < 0) throw new Error(`the agent applied generation ${generation} but logged no applyMs for it within 10 s`);
  for (const i of [0, OBJECTS - 1]) {
    const vs = await c.request("GET", `/apis/networking.istio.io/v1/namespaces/load/virtualservices/vs-${i}`);
    if (vs.status !== 200) throw new Error(`generation ${generation} applied, but VirtualService load/vs-${i} is ${vs.status}`);
  }
  const loaded = await sample(pid, SAMPLE_MS);
  console.log(
    `${PODS} pods + ${OBJECTS} objects: ${loaded.rssMiB} MiB RSS, ${loaded.mcpu} mCPU; ${OBJECTS} objects applied in ${applyStepMs} ms, ${applyMs} ms after publication (told through the push channel)`,
  );

  // Propagation: API write → object in the cluster, default poll interval, push channel on.
  const samples: number[] = [];
  for (let i = 0; i < WRITES; i++) {
    const name = `prop-${i}`;
    // Writes land at a random point of the agent's poll cycle, as users' writes do.
    await new Promise((r) => setTimeout(r, Math.random() * SPREAD_MS));
    const t0 = performance.now();
    await expectStatus(
      plane.request("POST", "/v1/trafficpolicies", admin, {
        apiVersion: "meshplane.dev/v1",
        kind: "TrafficPolicy",
        metadata: { name },
        spec: {
          destinationSelector: [{ kubeServiceRefs: { services: [{ cluster: "cluster-east", namespace: "bookinfo", name: "ratings" }] } }],
          policy: { requestTimeout: `${i + 1}s` },
        },
      }),
      201,
      `POST /v1/trafficpolicies ${name}`,
    );
    for (;;) {
      const vs = await c.request<{ spec?: { http?: { timeout?: string }[] } }>(
        "GET",
        "/apis/networking.istio.io/v1/namespaces/bookinfo/virtualservices/ratings",
      );
      if (vs.body.spec?.http?.some((r) => r.timeout === `${i + 1}s`)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    samples.push(performance.now() - t0);
    await expectStatus(plane.request("DELETE", `/v1/trafficpolicies/${name}`, admin), 200, `DELETE /v1/trafficpolicies/${name}`);
  }
  samples.sort((a, b) => a - b);
  const figures = {
    bench: "agent",
    idle_rss_mib: idle.rssMiB,
    idle_mcpu: idle.mcpu,
    loaded_rss_mib: loaded.rssMiB,
    loaded_mcpu: loaded.mcpu,
    pods: PODS,
    objects: OBJECTS,
    apply_objects_ms: applyStepMs,
    published_to_applied_ms: applyMs,
    propagation_p50_ms: Math.round(percentile(samples, 50)),
    propagation_p99_ms: Math.round(percentile(samples, 99)),
    writes: WRITES,
  };
  console.log(JSON.stringify(figures));
} finally {
  await agent?.stop();
  await plane.stop();
}
