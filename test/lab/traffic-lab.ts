/**
 * Golden signals in the lab (`npm run lab`, test/e2e/metrics.test.ts): the traffic model's world in
 * the lab's two clusters (./traffic-fixture.ts), a real Prometheus per cluster that the model's series
 * are written into as time passes (./live-traffic.ts), each cluster's agent reading its Prometheus
 * (docs/agent.md#metrics) and sending a report every minute, and the change the model's error burst
 * follows: a TrafficPolicy on cart, made in the minute before the burst starts
 * (docs/observability.md#trying-it).
 */
import { rmSync } from "node:fs";
import { dirname } from "node:path";
import { type LabAgent, eventually, startLabAgent } from "../e2e/lab-agents";
import { CLUSTER_IDS, type ClusterName, type TrafficModel, trafficModel } from "../metrics/traffic-model";
import type { ControlPlane } from "../support/control-plane";
import { type PrometheusServer, startPrometheus } from "../support/prometheus/server";
import { programWaypoints } from "./ambient-lab";
import { LAB_CLUSTERS, trafficFixtures } from "./traffic-fixture";

export const MODEL_CLUSTERS = Object.keys(CLUSTER_IDS) as ClusterName[];
/** How long after a minute's end the agents read it: the model's samples are written well before. */
export const SETTLE_S = 30;
/** The model's minute in which the change is made: its error burst starts in the next one. */
export const CHANGE_MINUTE = 11;
/** The model's length: its events, then five steady minutes that live traffic repeats (./live-traffic.ts). */
export const MODEL_MINUTES = 20;

/** The burst's destination as discovery names it, and the change made to it. */
export const CART = `cart-shop-${LAB_CLUSTERS["cluster-1"]}`;
export const CART_CHANGE = {
  apiVersion: "meshplane.dev/v1",
  kind: "TrafficPolicy",
  metadata: { name: "cart-timeout" },
  spec: {
    destinationSelector: [{ kubeServiceRefs: { services: [{ cluster: LAB_CLUSTERS["cluster-1"], namespace: "shop", name: "cart" }] } }],
    policy: { requestTimeout: "1s" },
  },
};

export interface TrafficLab {
  agents: Record<ClusterName, LabAgent>;
  prometheus: Record<ClusterName, PrometheusServer>;
  /** Stops the agents (and their clusters) and the Prometheus servers. */
  stop(): Promise<void>;
}

/** The agent's flags with metrics on, reading `prometheusUrl` every minute and sending every minute. */
export function metricsAgentArgs(prometheusUrl: string): string[] {
  return [
    "--poll-interval=1",
    "--poll-jitter=0",
    "--resync-interval=10",
    `--prometheus-url=${prometheusUrl}`,
    "--metrics-interval=60",
    "--metrics-send-every=60",
    `--metrics-settle=${SETTLE_S}`,
  ];
}

type Admin = { cp: ControlPlane; admin: string };

async function get<T>({ cp, admin }: Admin, path: string): Promise<T | undefined> {
  const res = await cp.request("GET", path, { token: admin });
  return res.ok ? ((await res.json()) as T) : undefined;
}

/**
 * Starts a Prometheus per cluster (empty), the two lab clusters seeded with the model's world and
 * their agents in `admin`'s tenant reading them, programs the waypoint, and waits until discovery
 * names the model's destinations and each cluster applied a first generation: the baseline a change
 * is told from (docs/observability.md#change-impact), which discovery alone publishes. With `authoring`, the
 * agents also sync meshplane custom resources (docs/gitops.md#the-agent), the chart's CRDs installed.
 */
export async function startTrafficLab(cp: ControlPlane, admin: string, options: { authoring?: boolean } = {}): Promise<TrafficLab> {
  const prometheus = {} as Record<ClusterName, PrometheusServer>;
  const agents = {} as Record<ClusterName, LabAgent>;
  const lab: TrafficLab = {
    agents,
    prometheus,
    async stop() {
      await Promise.all(Object.values(agents).map((a) => a.stop()));
      await Promise.all(Object.values(prometheus).map((p) => p.stop()));
    },
  };
  const fixtures = trafficFixtures();
  try {
    await Promise.all(MODEL_CLUSTERS.map(async (c) => (prometheus[c] = await startPrometheus())));
    await Promise.all(
      MODEL_CLUSTERS.map(
        async (c) =>
          (agents[c] = await startLabAgent(
            cp,
            admin,
            LAB_CLUSTERS[c],
            fixtures[c],
            [...metricsAgentArgs(prometheus[c].url), ...(options.authoring ? ["--authoring=true", "--authoring-status-every=5"] : [])],
            // Policies from Git (docs/gitops.md): the chart's CRDs and the agent's rights on them.
            options.authoring ? { values: { "authoring.enabled": "true" } } : {},
          )),
      ),
    );
    // The Gateway API's CRDs may still be being established in a new apiserver: a failed listing is tried again.
    await eventually("the waypoint programmed", async () => ((await programWaypoints(agents["cluster-2"].cluster)).length > 0 ? true : undefined));
    const at = { cp, admin };
    await eventually(
      "the model's destinations discovered, ledger behind its waypoint",
      async () => {
        const names = (await get<{ items: { metadata: { name: string }; spec: { name: string; waypoint?: unknown } }[] }>(at, "/v1/destinations"))?.items ?? [];
        const ledger = names.find((d) => d.metadata.name === `ledger-bank-${LAB_CLUSTERS["cluster-2"]}`);
        if (names.some((d) => d.metadata.name === CART) && ledger?.spec.waypoint) return true;
        throw new Error(
          `${CART} ${names.some((d) => d.metadata.name === CART) ? "found" : "not found"}, ledger's waypoint ${JSON.stringify(ledger?.spec.waypoint)}`,
        );
      },
      120_000,
    );
    await eventually(
      "a generation applied in both clusters",
      async () => {
        const clusters = await Promise.all(MODEL_CLUSTERS.map((c) => get<{ appliedGeneration?: number }>(at, `/v1/clusters/${LAB_CLUSTERS[c]}/snapshot`)));
        const generations = clusters.map((c) => c?.appliedGeneration ?? 0);
        if (generations.every((g) => g >= 1)) return true;
        throw new Error(`generations applied: ${generations.join(", ")}`);
      },
      120_000,
    );
    return lab;
  } catch (error) {
    await lab.stop();
    throw error;
  } finally {
    for (const fixture of Object.values(fixtures)) rmSync(dirname(fixture), { recursive: true, force: true });
  }
}

/**
 * The model placed so that its minute CHANGE_MINUTE starts at the first minute boundary at least
 * 20 s from `now` (epoch ms): the minutes before it are history by then, and the agents read the one
 * just before it only SETTLE_S after that boundary, long after its samples are written.
 */
export function placeModel(now: number): { model: TrafficModel; changeAt: number } {
  const changeAt = Math.ceil((now / 1000 + 20) / 60) * 60;
  return { model: trafficModel({ base: changeAt - CHANGE_MINUTE * 60, minutes: MODEL_MINUTES }), changeAt };
}

interface PolicyStatus {
  status?: { state: string; clusters?: Record<string, { applied: boolean }> };
}

/**
 * Waits until `changeAt` (epoch seconds), then applies CART_CHANGE and waits until every cluster
 * its status names has applied it; answers those clusters. The change markers are recorded when the
 * agents report it (docs/observability.md#change-impact), in the minute starting at `changeAt`.
 */
export async function makeChange(cp: ControlPlane, admin: string, changeAt: number): Promise<string[]> {
  const wait = changeAt * 1000 + 200 - Date.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  const res = await cp.request("POST", "/v1/trafficpolicies", { token: admin, body: CART_CHANGE });
  if (res.status !== 201) throw new Error(`apply ${CART_CHANGE.metadata.name}: ${res.status} ${await res.text()}`);
  const status = await eventually(
    `${CART_CHANGE.kind} ${CART_CHANGE.metadata.name} applied in its clusters`,
    async () => {
      const s = (await get<PolicyStatus>({ cp, admin }, `/v1/trafficpolicies/${CART_CHANGE.metadata.name}`))?.status;
      const clusters = Object.values(s?.clusters ?? {});
      return s && s.state !== "PENDING" && clusters.length > 0 && clusters.every((c) => c.applied) ? s : undefined;
    },
    50_000,
  );
  return Object.keys(status.clusters ?? {}).sort();
}
