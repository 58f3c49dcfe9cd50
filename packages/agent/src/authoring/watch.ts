import { failedWith } from "../kube/failure";
import { Informer, type WatchSource } from "../kube/informer";
import { AUTHORED_KINDS, type CustomResource, collectionPath } from "./objects";

/** How long until a list that failed is tried again: at once for a watch that broke, later for a kind not served. */
const RETRY_MS = 2000;
export const NOT_SERVED_RETRY_MS = 10_000;

export interface CustomResourceWatchDeps {
  kube: WatchSource;
  /** Empty: one cluster-wide informer per kind; else one per kind and namespace (the chart's Roles are per namespace). */
  namespaces: readonly string[];
  onChange: (cr: CustomResource) => void;
  onGone: (cr: CustomResource) => void;
  onError: (what: string, error: unknown) => void;
  /** Called when every informer has listed, each time that becomes true. */
  onListed: () => void;
}

/**
 * The informers over the meshplane custom resources (docs/gitops.md#the-agent): one per kind,
 * cluster-wide or per watched namespace. A kind whose CRD is not installed (404) holds none and
 * counts as listed; it is listed again every minute. A list refused (403) or failed is not listed,
 * so nothing that needs the whole view (a sync) runs until it is.
 */
export class CustomResourceWatch {
  private readonly informers = new Map<string, Informer>();
  private readonly listed = new Set<string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopped = false;

  constructor(private readonly deps: CustomResourceWatchDeps) {}

  async start(): Promise<void> {
    const scopes = this.deps.namespaces.length > 0 ? this.deps.namespaces : [undefined];
    await Promise.all(
      AUTHORED_KINDS.flatMap((kind) =>
        scopes.map(async (namespace) => {
          const path = collectionPath(kind, namespace);
          const informer = new Informer(this.deps.kube, path);
          this.informers.set(path, informer);
          informer.on("add", (o) => this.deps.onChange({ ...(o as CustomResource), kind }));
          informer.on("update", (o) => this.deps.onChange({ ...(o as CustomResource), kind }));
          informer.on("delete", (o) => this.deps.onGone({ ...(o as CustomResource), kind }));
          informer.on("error", (error: unknown) => this.failed(path, informer, error));
          await this.startOne(path, informer);
        }),
      ),
    );
  }

  stop(): void {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    for (const informer of this.informers.values()) informer.stop();
  }

  /** Whether every informer has listed: the view is whole. */
  whole(): boolean {
    return this.informers.size > 0 && this.listed.size === this.informers.size;
  }

  private failed(path: string, informer: Informer, error: unknown): void {
    const notServed = failedWith(error, "not-found");
    if (notServed) this.setListed(path);
    else {
      this.listed.delete(path);
      this.deps.onError(`watch ${path}`, error);
    }
    if (this.stopped) return;
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        if (!this.stopped) void this.startOne(path, informer);
      },
      notServed || failedWith(error, "forbidden") ? NOT_SERVED_RETRY_MS : RETRY_MS,
    );
    timer.unref();
    this.timers.add(timer);
  }

  private async startOne(path: string, informer: Informer): Promise<void> {
    let failed = false;
    const onError = () => (failed = true);
    informer.on("error", onError);
    await informer.start().catch(() => (failed = true));
    informer.off("error", onError);
    if (!failed) this.setListed(path);
  }

  private setListed(path: string): void {
    const was = this.whole();
    this.listed.add(path);
    if (!was && this.whole()) this.deps.onListed();
  }
}
