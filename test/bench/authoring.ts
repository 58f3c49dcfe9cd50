/**
 * Policies from Git (docs/gitops.md): `npm run bench -- authoring`.
 *
 * The control plane: ITEMS TrafficPolicies (1,000) of the bench tenant (test/bench/_bench-tenant.ts,
 * CLUSTERS × SERVICES, 20 × 100) submitted by one cluster's registered agent through
 * `POST /v1/agent/resources` in batches of 50 — batch latency and items/s, beside the same batches
 * through `POST /v1/apply` into a twin tenant — then the worker's translate job on DynamoDB Local:
 * the authored tenant's first (publishing, writing every status), then RUNS (5) more of each tenant,
 * alternating, whose medians' difference is the grant step's cost, beside the grant step alone; and
 * the job after one resource changed (warm input), authored and through the API. The
 * grant lets the agent's cluster select every cluster, named one by one (so clipping runs), so the
 * two tenants must translate alike: every policy's state is checked to match.
 *
 * The agent: a lab kube-apiserver with the chart's CustomResourceDefinitions and RBAC
 * (`authoring.enabled`), the bundled agent with `--authoring=true` at the chart's intervals
 * (STATUS_EVERY_S replaces `authoring.statusEvery`) and push on, as installed, CRS custom
 * resources (200) created at once — the time until each one's status is Ready for its generation, the
 * custom resources the agent submitted (`meshplane_agent_authoring_submitted_total`), its RSS before
 * and after — and a flood: one custom resource edited FLOOD times (100) in a row, the submissions it
 * took and the time from the last edit until the control plane holds it and the status is Ready.
 * Last line: {"bench":"authoring","items":…,"batch_p50_ms":…,…,"flood_submits":…,"agent_rss_mib":…}.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import type { StoredResource, UserDocument } from "@meshplane/core";
import { GrantStep } from "@meshplane/core/authoring";
import { parse } from "yaml";
import { loadTranslateInput } from "../../functions/translation/input";
import { translateTenant } from "../../functions/translation/job";
import { WarmInputs } from "../../functions/translation/warm-input";
import type { ControlPlaneClient } from "../../packages/agent/src/control-plane/client";
import { type LabAgent, eventually, startLabAgent } from "../e2e/lab-agents";
import { FIXTURES } from "../support/agents";
import { benchPlane, expectStatus, labPlane, percentile } from "./_harness";
import { benchTenant } from "./_bench-tenant";

const ITEMS = Number(process.env.ITEMS ?? 1000);
const CLUSTERS = Number(process.env.CLUSTERS ?? 20);
const SERVICES = Number(process.env.SERVICES ?? 100);
const RUNS = Number(process.env.RUNS ?? 5);
const CRS = Number(process.env.CRS ?? 200);
const FLOOD = Number(process.env.FLOOD ?? 100);
const BATCH = 50;
const AUTHOR = "cluster-000";
const NS = "policies";
/** The lab cluster of part 2, and the namespace of its custom resources (the bookinfo fixture's). */
const CR_CLUSTER = "cluster-east";
const CR_NS = "bookinfo";
const GENEROUS = { limit: 1_000_000, windowMs: 10_000, lease: 100 };
/** Part 1 measures what a submit costs, not the budget (docs/api.md#rate-limits): every class has room. */
const ROOMY = Object.fromEntries((["read", "write", "plan", "agent", "metrics", "authoring", "operator", "refused"] as const).map((c) => [c, GENEROUS]));

const ms = (t0: number) => Math.round(performance.now() - t0);
const median = (xs: number[]) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );
const sleep = (t: number) => new Promise((r) => setTimeout(r, t));
const documentOf = (r: StoredResource): UserDocument =>
  ({ apiVersion: r.apiVersion, kind: r.kind, metadata: { name: r.metadata.name }, spec: r.spec }) as UserDocument;

/** The control plane's side: submits, the translate jobs, the grant step and one change. */
async function controlPlane() {
  const plane = await benchPlane({ limits: ROOMY });
  try {
    const world = benchTenant({ clusters: CLUSTERS, servicesPerCluster: SERVICES, trafficPolicies: ITEMS, accessPolicies: Math.floor(ITEMS / 2) });
    const now = new Date();
    const adminOf = new Map<string, string>();
    let agent: ControlPlaneClient | undefined;
    // Two tenants of the same world: "authored" gets its TrafficPolicies from AUTHOR's agent, "api" through the API.
    for (const tenant of ["authored", "api"]) {
      const admin = await plane.tenant(tenant);
      adminOf.set(tenant, admin);
      if (tenant === "authored") agent = (await plane.agent(admin, tenant, AUTHOR)).client;
      for (const cluster of world.clusters) {
        if (tenant !== "authored" || cluster !== AUTHOR) await plane.store.clusters.register(tenant, { name: cluster }, now);
        const of = <T extends { spec: { cluster: string } }>(list: T[]) => list.filter((o) => o.spec.cluster === cluster);
        await plane.store.discovered.replace(tenant, cluster, {
          meshes: of(world.meshes),
          workloads: of(world.workloads),
          destinations: of(world.destinations),
        });
      }
      const rest = [...world.virtualMeshes, ...world.accessPolicies].map(documentOf);
      for (let i = 0; i < rest.length; i += 98)
        await plane.store.resources.write(
          tenant,
          rest.slice(i, i + 98).map((doc) => ({ doc, mode: "apply" as const })),
          now.toISOString(),
        );
    }
    // The agent's cluster may select every cluster of the world, each named (so clipping runs, unlike "*").
    await expectStatus(
      plane.request("PUT", `/v1/clusters/${AUTHOR}/authoring`, adminOf.get("authored") as string, {
        kinds: ["TrafficPolicy", "AccessPolicy"],
        clusters: world.clusters,
      }),
      200,
      "PUT grant",
    );
    const policies = world.trafficPolicies.map(documentOf);
    const submitBatches: number[] = [];
    const applyBatches: number[] = [];
    const submitStart = performance.now();
    for (let i = 0; i < policies.length; i += BATCH) {
      const items = policies
        .slice(i, i + BATCH)
        .map((document) => ({ source: { namespace: NS, name: document.metadata.name, uid: `uid-${document.metadata.name}`, generation: 1 }, document }));
      const t0 = performance.now();
      const results = await (agent as ControlPlaneClient).submitResources({ items });
      submitBatches.push(performance.now() - t0);
      const wrong = results.results.find((r) => r.outcome !== "stored" || r.action !== "created");
      if (wrong) throw new Error(`submit of batch ${i / BATCH}: ${JSON.stringify(wrong)}`);
    }
    const submitSeconds = (performance.now() - submitStart) / 1000;
    for (let i = 0; i < policies.length; i += BATCH) {
      const t0 = performance.now();
      const res = await expectStatus(
        plane.request("POST", "/v1/apply", adminOf.get("api") as string, { documents: policies.slice(i, i + BATCH) }),
        200,
        "POST /v1/apply",
      );
      applyBatches.push(performance.now() - t0);
      const { results } = (await res.json()) as { results: { action: string }[] };
      if (results.length !== Math.min(BATCH, policies.length - i) || results.some((r) => r.action !== "created"))
        throw new Error(`apply: ${JSON.stringify(results.slice(0, 3))}`);
    }
    submitBatches.sort((a, b) => a - b);
    applyBatches.sort((a, b) => a - b);
    console.log(
      `${ITEMS} TrafficPolicies submitted in ${submitBatches.length} batches: p50 ${Math.round(percentile(submitBatches, 50))} ms; through /v1/apply p50 ${Math.round(percentile(applyBatches, 50))} ms`,
    );

    // The worker's job: the first (publishes every cluster, writes every status), then RUNS again whole, alternating.
    // The twin's first job runs first: it bears the process's warm-up (compiling, the table's first
    // reads), which would otherwise make whichever ran first the slower by a second.
    const job = async (tenantId: string, worker = plane.worker, force = false) => {
      const { revision } = await plane.store.tenants.get(tenantId);
      const t0 = performance.now();
      if ((await translateTenant(worker, { tenantId, revision, ...(force ? { force } : {}) })) !== "translated")
        throw new Error(`${tenantId}: the job was skipped`);
      return ms(t0);
    };
    await job("api");
    const firstAuthored = await job("authored");
    const again: Record<string, number[]> = { authored: [], api: [] };
    for (let r = 0; r < RUNS; r++) for (const t of ["api", "authored"]) again[t]?.push(await job(t, plane.worker, true));
    const states = await sameStates(plane.store);
    console.log(`TrafficPolicies by state, alike in both tenants: ${JSON.stringify(states)}`);
    // The grant step alone, on the authored tenant's input as the job loads it.
    const input = await loadTranslateInput(plane.store, "authored");
    const steps: number[] = [];
    for (let r = 0; r < Math.max(RUNS, 3); r++) {
      const t0 = performance.now();
      const { refused } = new GrantStep().apply(input);
      steps.push(performance.now() - t0);
      if (refused.length > 0) throw new Error(`the grant step refused ${refused.length}: ${JSON.stringify(refused[0]?.status)}`);
    }

    // One authored TrafficPolicy changed (a new generation of its custom resource), on a warm worker.
    const warm = { ...plane.worker, warm: new WarmInputs(plane.store) };
    await job("authored", warm, true);
    const one = policies[0] as UserDocument & { spec: { policy: Record<string, unknown> } };
    const changed = { ...one, spec: { ...one.spec, policy: { ...one.spec.policy, requestTimeout: "42s" } } };
    const answer = await (agent as ControlPlaneClient).submitResources({
      items: [{ source: { namespace: NS, name: one.metadata.name, uid: `uid-${one.metadata.name}`, generation: 2 }, document: changed }],
    });
    if (answer.results[0]?.outcome !== "stored" || answer.results[0].action !== "configured")
      throw new Error(`the change: ${JSON.stringify(answer.results[0])}`);
    const changeMs = await job("authored", warm);
    // The same change to the twin's, through the API, on a warm worker of its own.
    const warmApi = { ...plane.worker, warm: new WarmInputs(plane.store) };
    await job("api", warmApi, true);
    await expectStatus(plane.request("POST", "/v1/apply", adminOf.get("api") as string, { documents: [changed] }), 200, "POST /v1/apply the change");
    const changeApiMs = await job("api", warmApi);
    for (const [tenant, name] of [
      ["authored", `${one.metadata.name}.${NS}.${AUTHOR}`],
      ["api", one.metadata.name],
    ] as const) {
      const held = await plane.store.resources.get(tenant, "TrafficPolicy", name);
      if (held.status.observedGeneration !== 2)
        throw new Error(`${tenant}: after the change's job ${name}'s status observed generation ${held.status.observedGeneration}, not 2`);
    }
    return {
      items: ITEMS,
      clusters: CLUSTERS,
      batch_p50_ms: Math.round(percentile(submitBatches, 50)),
      batch_p99_ms: Math.round(percentile(submitBatches, 99)),
      items_per_s: Math.round(ITEMS / submitSeconds),
      api_batch_p50_ms: Math.round(percentile(applyBatches, 50)),
      api_batch_p99_ms: Math.round(percentile(applyBatches, 99)),
      first_job_authored_ms: firstAuthored,
      job_authored_ms: Math.round(median(again.authored as number[])),
      job_api_ms: Math.round(median(again.api as number[])),
      grant_overhead_ms: Math.round(median(again.authored as number[]) - median(again.api as number[])),
      grant_step_ms: Math.round(median(steps) * 10) / 10,
      change_job_ms: changeMs,
      change_job_api_ms: changeApiMs,
    };
  } finally {
    await plane.stop();
  }
}

/** Each TrafficPolicy is in the same state in both tenants, and was translated at generation 1; answers how many are in each. */
async function sameStates(store: Awaited<ReturnType<typeof benchPlane>>["store"]): Promise<Record<string, number>> {
  const api = new Map((await store.resources.list("api", "TrafficPolicy")).map((r) => [r.metadata.name, r.status]));
  const authored = await store.resources.list("authored", "TrafficPolicy");
  if (authored.length !== api.size) throw new Error(`${authored.length} authored TrafficPolicies, ${api.size} through the API`);
  const counts: Record<string, number> = {};
  for (const r of authored) {
    const twin = api.get(r.metadata.source?.name ?? "");
    if (r.status.observedGeneration !== 1 || twin?.state !== r.status.state)
      throw new Error(`${r.metadata.name} is ${r.status.state} (observed ${r.status.observedGeneration}); through the API it is ${twin?.state}`);
    counts[r.status.state] = (counts[r.status.state] ?? 0) + 1;
  }
  return counts;
}

/** The agent's RSS in MiB, from /proc. */
function rssMiB(pid: number): number {
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024);
}

interface Cr {
  metadata: { name: string; generation: number };
  status?: { observedGeneration?: number; conditions?: { type: string; status: string }[] };
}
const ready = (cr: Cr | undefined) =>
  cr?.status?.observedGeneration === cr?.metadata.generation && cr?.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") === true;
const crs = `/apis/meshplane.dev/v1/namespaces/${CR_NS}/trafficpolicies`;
const SERVICES_OF_BOOKINFO = ["productpage", "reviews", "ratings", "details"];
/** The i-th custom resource: a timeout on its own path prefix, so no two conflict. */
const customResource = (name: string, i: number, timeout = `${1 + (i % 9)}s`) => ({
  apiVersion: "meshplane.dev/v1",
  kind: "TrafficPolicy",
  metadata: { name, namespace: CR_NS },
  spec: {
    destinationSelector: [{ kubeServiceMatcher: { namespaces: [CR_NS], labels: { app: SERVICES_OF_BOOKINFO[i % 4] } } }],
    httpRequestMatchers: [{ uri: { prefix: `/bench/${i}` } }],
    policy: { requestTimeout: timeout },
  },
});

/** Waits until custom resource `name` is Ready at `generation` (its own, when undefined); a timeout says its status. */
async function untilReady(lab: LabAgent, name: string, generation?: number): Promise<void> {
  let last: Cr | undefined;
  await eventually(
    `${name} Ready${generation === undefined ? "" : ` at generation ${generation}`}`,
    async () => {
      last = (await lab.cluster.request<Cr>("GET", `${crs}/${name}`)).body;
      return (generation === undefined || last.metadata.generation === generation) && ready(last) ? true : undefined;
    },
    300_000,
  ).catch((error: unknown) => {
    throw new Error(`${(error as Error).message}; its status: ${JSON.stringify(last?.status)}`);
  });
}

/** The chart's authoring intervals (values.yaml `authoring.syncEvery`, `statusEvery`), as an install runs the agent. */
function chartIntervals(): { syncEvery: number; statusEvery: number } {
  const values = parse(readFileSync(join(import.meta.dirname, "../../packages/agent/chart/values.yaml"), "utf8")) as {
    authoring: { syncEvery: number; statusEvery: number };
  };
  return values.authoring;
}

/** The agent's side: CRS custom resources to Ready, and a flood of edits of one. */
async function inCluster() {
  const plane = await benchPlane({ worker: true });
  let agent: LabAgent | undefined;
  let watch: NodeJS.Timeout | undefined;
  try {
    const admin = await plane.tenant("bench");
    const cp = labPlane(plane);
    const intervals = chartIntervals();
    const statusEvery = Number(process.env.STATUS_EVERY_S ?? intervals.statusEvery);
    agent = await startLabAgent(
      cp,
      admin,
      CR_CLUSTER,
      join(FIXTURES, "istio-bookinfo.yaml"),
      [
        "--poll-interval=15",
        "--poll-jitter=0.2",
        "--resync-interval=300",
        "--authoring=true",
        `--authoring-sync-every=${intervals.syncEvery}`,
        `--authoring-status-every=${statusEvery}`,
      ],
      { values: { "authoring.enabled": "true" } },
    );
    const lab = agent;
    const pid = lab.process.pid as number;
    const metric = async (name: string) => Number(new RegExp(`^${name} (\\d+)`, "m").exec(await lab.metrics())?.[1] ?? Number.NaN);
    await eventually(
      "the agent's first discovery report",
      async () => ((await metric("meshplane_agent_discovery_reports_total")) >= 1 ? true : undefined),
      120_000,
    );
    await eventually("the authoring watch", async () => (lab.output().includes("authoring: watching") ? true : undefined));
    await sleep(2000);
    const rssBefore = rssMiB(pid);
    let rssPeak = rssBefore;
    watch = setInterval(() => (rssPeak = Math.max(rssPeak, rssMiB(pid))), 250);
    const submittedBefore = await metric("meshplane_agent_authoring_submitted_total");

    // CRS custom resources at once (ten requests in flight), then each one's time to Ready.
    const t0 = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(10, CRS) }, async () => {
        while (next < CRS) {
          const i = next++;
          const res = await lab.cluster.request("POST", crs, customResource(`tp-${i}`, i));
          if (res.status !== 201) throw new Error(`create tp-${i}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
        }
      }),
    );
    const createdMs = ms(t0);
    const readyAt = new Map<string, number>();
    let listed: Cr[] = [];
    await eventually(
      `${CRS} custom resources Ready`,
      async () => {
        listed = (await lab.cluster.request<{ items: Cr[] }>("GET", crs)).body.items;
        for (const cr of listed) if (!readyAt.has(cr.metadata.name) && ready(cr)) readyAt.set(cr.metadata.name, ms(t0));
        return readyAt.size >= CRS ? true : undefined;
      },
      600_000,
    ).catch((error: unknown) => {
      const waiting = listed.find((cr) => !readyAt.has(cr.metadata.name));
      throw new Error(`${(error as Error).message}: ${readyAt.size} are; ${waiting?.metadata.name} says ${JSON.stringify(waiting?.status)}`);
    });
    const toReady = [...readyAt.values()].sort((a, b) => a - b);
    const submitted = (await metric("meshplane_agent_authoring_submitted_total")) - submittedBefore;
    if (!(submitted >= CRS)) throw new Error(`${CRS} custom resources Ready, but the agent counts ${submitted} submitted`);
    const held = await expectStatus(plane.request("GET", `/v1/trafficpolicies?limit=1000`, admin), 200, "GET /v1/trafficpolicies");
    const stored = ((await held.json()) as { items: { metadata: { name: string } }[] }).items.filter((r) =>
      r.metadata.name.endsWith(`.${CR_NS}.${CR_CLUSTER}`),
    );
    if (stored.length !== CRS) throw new Error(`${CRS} custom resources Ready, ${stored.length} stored`);
    const rssAfter = rssMiB(pid);
    console.log(
      `${CRS} custom resources created in ${createdMs} ms, Ready p50 ${percentile(toReady, 50)} ms, max ${toReady.at(-1)} ms; ${submitted} submitted; RSS ${rssBefore} → ${rssAfter} MiB`,
    );

    // The flood: one custom resource edited FLOOD times in a row.
    const flood = await lab.cluster.request("POST", crs, customResource("flood", CRS, "1s"));
    if (flood.status !== 201) throw new Error(`create flood: ${flood.status}`);
    await untilReady(lab, "flood");
    const floodBefore = await metric("meshplane_agent_authoring_submitted_total");
    let generation = 1;
    for (let i = 2; i <= FLOOD + 1; i++) {
      const res = await lab.cluster.request<Cr>("PATCH", `${crs}/flood`, { spec: customResource("flood", CRS, `${i}s`).spec }, undefined, {
        contentType: "application/merge-patch+json",
      });
      if (res.status !== 200) throw new Error(`edit ${i} of flood: ${res.status}`);
      generation = res.body.metadata.generation;
    }
    const last = `${FLOOD + 1}s`;
    const edited = performance.now();
    await eventually(
      "the last edit stored",
      async () => {
        const res = await plane.request("GET", `/v1/trafficpolicies/flood.${CR_NS}.${CR_CLUSTER}`, admin);
        return res.status === 200 && ((await res.json()) as { spec: { policy: { requestTimeout?: string } } }).spec.policy.requestTimeout === last
          ? true
          : undefined;
      },
      120_000,
    );
    const floodStoredMs = ms(edited);
    await untilReady(lab, "flood", generation);
    const floodReadyMs = ms(edited);
    const floodSubmits = (await metric("meshplane_agent_authoring_submitted_total")) - floodBefore;
    return {
      crs: CRS,
      status_every_s: statusEvery,
      create_crs_ms: createdMs,
      to_ready_p50_ms: percentile(toReady, 50),
      to_ready_p99_ms: percentile(toReady, 99),
      to_ready_max_ms: toReady.at(-1),
      submitted,
      status_writes: await metric("meshplane_agent_authoring_status_writes_total"),
      flood_edits: FLOOD,
      flood_submits: floodSubmits,
      flood_stored_ms: floodStoredMs,
      flood_ready_ms: floodReadyMs,
      agent_rss_before_mib: rssBefore,
      agent_rss_mib: rssAfter,
      agent_rss_peak_mib: Math.max(rssPeak, rssAfter),
    };
  } finally {
    clearInterval(watch);
    await agent?.stop();
    await plane.stop();
  }
}

const figures = await controlPlane();
console.log(JSON.stringify({ bench: "authoring", ...figures, ...(await inCluster()) }));
