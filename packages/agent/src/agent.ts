import { readFileSync } from "node:fs";
import type { Server } from "node:http";
import { ApiError } from "@meshplane/core/http-client";
import { startAuthoring } from "./authoring/start";
import { ControlPlaneClient } from "./control-plane/client";
import { PushChannel } from "./control-plane/push";
import { DiscoveryWatch } from "./discovery/discovery-watch";
import { meshWorkloads } from "./discovery/mesh-workloads";
import { inClusterAccess, kubeconfigAccess } from "./kube/access";
import { Kube } from "./kube/kube";
import { LeaderElector } from "./loop/leader";
import { type AgentState, StateStore, loadAgentKey, newAgentKey } from "./loop/state";
import { SyncLoop } from "./loop/sync-loop";
import { startMetrics } from "./metrics/start";
import { startHealthServer } from "./observability/health";
import { type Logger, createLogger } from "./observability/log";
import { Metrics } from "./observability/metrics";
import type { AgentOptions } from "./options";

export const AGENT_VERSION = "0.1.0";

export interface RunningAgent {
  metrics: Metrics;
  healthPort: number;
  stop(): Promise<void>;
}

/**
 * Makes sure the agent has a key the control plane knows. A key is created and stored in the state
 * Secret before the bootstrap token is spent, so a crash in between never loses a registered key.
 * A spent or expired token with no registered key cannot be recovered here: the log says what the
 * operator must do.
 */
async function ensureRegistered(options: AgentOptions, store: StateStore, state: AgentState, log: Logger): Promise<AgentState> {
  if (state.privateJwk && state.tenant) {
    if (!state.incarnation) {
      // Registered by an agent older than incarnations, or for a cluster created before them (docs/agent.md).
      log.info(
        "no cluster incarnation stored: only snapshots whose audience names none are accepted; if they are refused as wrong-audience, issue a new bootstrap token and delete the meshplane-agent-state Secret to register again",
      );
    }
    return state;
  }
  if (!state.privateJwk) {
    const key = await newAgentKey();
    state.privateJwk = key.privateJwk;
    await store.save(state);
  }
  const { publicJwk } = await loadAgentKey(state.privateJwk);
  let token: string;
  try {
    token = readFileSync(options.bootstrapTokenFile, "utf8").trim();
  } catch (error) {
    throw new Error(`no bootstrap token at ${options.bootstrapTokenFile}: register the cluster (POST /v1/clusters) and install the agent with its token`, {
      cause: error,
    });
  }
  try {
    const { tenant, cluster, incarnation } = await ControlPlaneClient.register(options.controlPlaneUrl, token, publicJwk, AGENT_VERSION);
    if (cluster !== options.cluster) throw new Error(`the bootstrap token is for cluster ${cluster}, but this agent is configured as ${options.cluster}`);
    state.tenant = tenant;
    state.cluster = cluster;
    if (incarnation) state.incarnation = incarnation;
    await store.save(state);
    log.info("registered with the control plane", { tenant, cluster, incarnation });
    return state;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      throw new Error(
        "the bootstrap token was refused (already used or expired): issue a new one with POST /v1/clusters/<name>/bootstrap-token and update the agent's bootstrap Secret",
        { cause: error },
      );
    }
    throw error;
  }
}

/** The composition root of the agent (docs/style.md#10-thin-entry-points-one-composition-root-per-runtime): everything is wired here from the options. */
export async function startAgent(
  options: AgentOptions,
  log: Logger = createLogger({ component: "meshplane-agent", cluster: options.cluster }),
): Promise<RunningAgent> {
  const kube = new Kube(options.kubeconfig ? await kubeconfigAccess(options.kubeconfig) : inClusterAccess());
  const metrics = new Metrics();
  const stateStore = new StateStore({ kube, namespace: options.namespace });
  let loop: SyncLoop | undefined;
  let discovery: DiscoveryWatch | undefined;
  const life = { stopped: false };
  let timer: NodeJS.Timeout | undefined;
  let push: PushChannel | undefined;
  let metricsLoop: { stop(): void } | undefined;
  let authoring: { stop(): void } | undefined;
  const elector = new LeaderElector({
    kube,
    namespace: options.namespace,
    name: options.leaseName,
    identity: options.identity,
    onChange: (leader) => {
      metrics.leader = leader ? 1 : 0;
      log.info(leader ? "became leader" : "not leader");
      if (leader) discovery?.reset();
    },
  });
  // A follower is ready: it serves nothing and stands by to lead; a not-ready follower would block a
  // node drain under the chart's PodDisruptionBudget. The leader is ready once a sync cycle finished.
  const health: Server = await startHealthServer(options.healthPort, { metrics, ready: () => !elector.isLeader() || loop?.synced === true });

  const boot = async () => {
    // Registration spends a one-time token, so only the leader does it.
    while (!life.stopped && !elector.isLeader()) await new Promise((r) => setTimeout(r, 1000));
    if (life.stopped) return;
    const state = await ensureRegistered(options, stateStore, await stateStore.load(), log);
    const { privateKey, publicJwk } = await loadAgentKey(state.privateJwk as never);
    const client = new ControlPlaneClient({
      url: options.controlPlaneUrl,
      tenant: state.tenant as string,
      cluster: options.cluster,
      key: { privateKey, publicJwk },
    });
    metrics.appliedGeneration = state.appliedGeneration;
    loop = new SyncLoop({
      client,
      kube,
      stateStore,
      state,
      scope: { tenant: state.tenant as string, cluster: options.cluster },
      trustedKeys: options.trustedKeys,
      metrics,
      log,
      pollIntervalMs: options.pollIntervalMs,
      pollJitter: options.pollJitter,
      resyncIntervalMs: options.resyncIntervalMs,
      isLeader: () => elector.isLeader(),
      certificates: options.certificates,
      // Only the restart stage asks, only while it rolls a mesh's workloads: discovery runs on demand.
      meshWorkloads: (mesh) => (discovery?.listed() ? meshWorkloads(discovery.snapshot(), mesh) : undefined),
    });
    discovery = new DiscoveryWatch({
      kube,
      cluster: options.cluster,
      debounceMs: options.discoveryDebounceMs,
      active: () => elector.isLeader(),
      publish: async (report) => {
        await client.discovery(report);
        metrics.discoveryReports++;
      },
      onError: (what, error) => log.error(`${what} failed`, { detail: (error as Error)?.message ?? String(error) }),
    });
    await discovery.start();
    // Golden signals on a timer of their own: nothing they do can stop the sync loop.
    if (options.metrics) {
      const watch = discovery;
      metricsLoop = startMetrics(options.metrics, {
        cluster: options.cluster,
        objects: () => (watch.listed() ? watch.snapshot() : undefined),
        post: (body) => client.postMetrics(body),
        active: () => elector.isLeader(),
        log,
        counters: metrics.telemetry,
      });
    }
    // The meshplane custom resources, on timers of their own: nothing they do can stop the sync loop.
    if (options.authoring) {
      authoring = startAuthoring(options.authoring, {
        kube,
        client,
        active: () => elector.isLeader(),
        log,
        counters: metrics.authoring,
      });
    }
    // One cycle at a time: a push that arrives mid-cycle runs the next one as soon as this one ends.
    let running = false;
    let again = false;
    const tick = async () => {
      if (life.stopped || !loop) return;
      if (running) {
        again = true;
        return;
      }
      running = true;
      clearTimeout(timer);
      let wait: number;
      try {
        wait = await loop.cycle();
      } finally {
        running = false;
      }
      if (life.stopped) return;
      timer = setTimeout(() => void tick(), again ? 0 : wait);
      again = false;
    };
    if (options.push) {
      push = new PushChannel({
        controlPlaneUrl: options.controlPlaneUrl,
        ...(options.pushUrl ? { pushUrl: options.pushUrl } : {}),
        token: () => client.pushToken(),
        log,
        // Only a hint to look now: what is fetched is verified as any polled snapshot is.
        onGeneration: (generation) => {
          if (generation === undefined || generation > state.appliedGeneration) void tick();
        },
      });
      push.start();
    }
    await tick();
  };
  elector.start();
  const booting = boot().catch((error: unknown) => {
    log.error("agent cannot start", { detail: (error as Error).message });
    metrics.syncError("registration");
  });

  return {
    metrics,
    healthPort: (health.address() as { port: number }).port,
    async stop() {
      life.stopped = true;
      if (timer) clearTimeout(timer);
      push?.stop();
      metricsLoop?.stop();
      authoring?.stop();
      discovery?.stop();
      await elector.stop();
      await booting;
      kube.close();
      await new Promise<void>((ok) => health.close(() => ok()));
    },
  };
}
