import { type ClusterObjects, type DiscoveryResult, HTTP_ROUTE_CRD, canonicalJson, discover, sha256 } from "@meshplane/core";
import { backoffMs } from "../backoff";
import { failedWith } from "../kube/failure";
import { Informer, type WatchSource } from "../kube/informer";

type ListName = Exclude<keyof ClusterObjects, "cluster">;

/**
 * One list discovery reads. An `optional` one is a kind a cluster may not serve (a CRD): listing it
 * answered 404 means none exist, and a 403 (a chart older than the agent) is logged and read as none,
 * so neither keeps discovery from reporting the rest; it is listed again every `OPTIONAL_RETRY_MS`.
 */
export interface DiscoverySource {
  list: ListName;
  path: string;
  optional?: boolean;
}

/** How long until an optional kind that was not served (or not allowed) is listed again. */
export const OPTIONAL_RETRY_MS = 60_000;

/** The one CRD discovery reads, selected by name so the chart can grant it alone. */
export const HTTP_ROUTE_CRD_PATH = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions?fieldSelector=${encodeURIComponent(`metadata.name=${HTTP_ROUTE_CRD}`)}`;

/**
 * The lists discovery reads (docs/resources.md#discovery, docs/ambient.md#what-discovery-sees), each
 * from an informer: watched, never polled. The chart's ClusterRole grants get/list/watch on exactly
 * these (its test holds the two together).
 */
export const SOURCES: readonly DiscoverySource[] = [
  { list: "deployments", path: "/apis/apps/v1/deployments" },
  { list: "statefulSets", path: "/apis/apps/v1/statefulsets" },
  { list: "daemonSets", path: "/apis/apps/v1/daemonsets" },
  { list: "replicaSets", path: "/apis/apps/v1/replicasets" },
  { list: "pods", path: "/api/v1/pods" },
  { list: "services", path: "/api/v1/services" },
  { list: "endpointSlices", path: "/apis/discovery.k8s.io/v1/endpointslices" },
  { list: "configMaps", path: "/api/v1/configmaps" },
  { list: "nodes", path: "/api/v1/nodes" },
  { list: "namespaces", path: "/api/v1/namespaces" },
  // Waypoints: served only where the Gateway API CRDs are installed.
  { list: "gateways", path: "/apis/gateway.networking.k8s.io/v1/gateways", optional: true },
  // The HTTPRoute CRD alone (docs/ambient.md#retries-and-the-crd-channel): a list and watch by
  // metadata.name, which RBAC authorizes against the rule's resourceNames. A chart that does not
  // grant it leaves the CRD unreported (unknown), as before.
  { list: "customResourceDefinitions", path: HTTP_ROUTE_CRD_PATH, optional: true },
];

export interface DiscoveryWatchDeps {
  kube: WatchSource;
  cluster: string;
  debounceMs: number;
  /** Sends a changed report; throws when it could not (it is retried with backoff). */
  publish: (report: DiscoveryResult & { hash: string }) => Promise<void>;
  /** Whether this replica should report (only the leader does). */
  active: () => boolean;
  onError: (what: string, error: unknown) => void;
  /** How long until an optional list that could not be read is tried again (OPTIONAL_RETRY_MS by default). */
  optionalRetryMs?: number;
}

/**
 * Watches what discovery reads, runs core discovery after changes settle (debounced), and publishes
 * when the result's hash differs from the last one published. Nothing is published until every
 * informer has listed once: a partial view would read as services disappearing, and the control
 * plane would withdraw their configuration.
 */
export class DiscoveryWatch {
  private readonly informers = new Map<ListName, Informer>();
  private readonly synced = new Set<ListName>();
  /** Optional lists the apiserver does not serve (or the agent may not read): reported as absent. */
  private readonly unavailable = new Set<ListName>();
  private timer?: NodeJS.Timeout;
  private lastHash?: string;
  private failures = 0;
  private stopped = false;

  constructor(private readonly deps: DiscoveryWatchDeps) {}

  async start(): Promise<void> {
    await Promise.all(
      SOURCES.map(async ({ list, path, optional }) => {
        const informer = new Informer(this.deps.kube, path);
        this.informers.set(list, informer);
        informer.on("change", () => this.schedule());
        informer.on("connect", () => undefined);
        informer.on("error", (error: unknown) => {
          if (optional && (failedWith(error, "not-found") || failedWith(error, "forbidden"))) return this.unavailableList(list, informer, error);
          this.synced.delete(list);
          this.deps.onError(`watch ${list}`, error);
          if (!this.stopped) setTimeout(() => void this.startOne(list, informer), backoffMs(1, { baseMs: 1000, capMs: 1000 }) + 1000);
        });
        await this.startOne(list, informer);
      }),
    );
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    for (const informer of this.informers.values()) informer.stop();
  }

  /** Forgets what was published, so the next change (or a leadership change) reports again. */
  reset(): void {
    this.lastHash = undefined;
    this.schedule();
  }

  /** Whether every informer has listed once: before that, snapshot() is a partial view. */
  listed(): boolean {
    return this.informers.size > 0 && this.synced.size === this.informers.size;
  }

  /** The current view as discovery input (for tests and the first report). */
  snapshot(): ClusterObjects {
    const list = (name: ListName) => (this.informers.get(name)?.list() ?? []) as never[];
    return {
      cluster: this.deps.cluster,
      deployments: list("deployments"),
      statefulSets: list("statefulSets"),
      daemonSets: list("daemonSets"),
      replicaSets: list("replicaSets"),
      pods: list("pods"),
      services: list("services"),
      endpointSlices: list("endpointSlices"),
      configMaps: list("configMaps"),
      nodes: list("nodes"),
      namespaces: list("namespaces"),
      ...(this.unavailable.has("gateways") ? {} : { gateways: list("gateways") }),
      ...(this.unavailable.has("customResourceDefinitions") ? {} : { customResourceDefinitions: list("customResourceDefinitions") }),
    };
  }

  /** An optional list that could not be read: none of its kind is reported, and it is listed again later. */
  private unavailableList(list: ListName, informer: Informer, error: unknown): void {
    // Not served is the ordinary state of a cluster without the CRDs; a refusal is the chart's to fix.
    if (failedWith(error, "forbidden")) this.deps.onError(`watch ${list}`, error);
    const first = !this.unavailable.has(list) || !this.synced.has(list);
    this.unavailable.add(list);
    this.synced.add(list);
    if (first) this.schedule();
    if (this.stopped) return;
    setTimeout(() => {
      if (!this.stopped) void this.startOne(list, informer);
    }, this.deps.optionalRetryMs ?? OPTIONAL_RETRY_MS).unref();
  }

  private async startOne(list: ListName, informer: Informer): Promise<void> {
    let failed = false;
    const onError = () => (failed = true);
    informer.on("error", onError);
    await informer.start().catch(() => (failed = true));
    informer.off("error", onError);
    if (!failed) {
      this.unavailable.delete(list);
      this.synced.add(list);
      this.schedule();
    }
  }

  private schedule(delay = this.deps.debounceMs): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.report(), delay);
  }

  private async report(): Promise<void> {
    if (!this.deps.active() || this.synced.size < this.informers.size || this.informers.size === 0) return;
    const result = discover(this.snapshot());
    const hash = sha256(canonicalJson(result));
    if (hash === this.lastHash) return;
    try {
      await this.deps.publish({ ...result, hash });
      this.lastHash = hash;
      this.failures = 0;
    } catch (error) {
      this.failures++;
      this.deps.onError("publish discovery", error);
      this.schedule(backoffMs(this.failures, { baseMs: 1000, capMs: 60_000 }));
    }
  }
}
