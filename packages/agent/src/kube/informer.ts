import type { KubernetesObject } from "@kubernetes/client-node";
import { failedWith, failureType } from "./failure";
import type { ListPage, WatchEvent } from "./kube";

/** What an informer needs of the apiserver (Kube; tests pass a fake). */
export interface WatchSource {
  listPath(path: string): Promise<ListPage>;
  watch(path: string, resourceVersion: string, onEvent: (event: WatchEvent) => void, done: (error: unknown) => void): Promise<() => void>;
}

type Verb = "add" | "update" | "delete" | "error" | "connect";
type Callback = (arg: unknown) => void;

/**
 * A cache of one collection, kept by list then watch: @kubernetes/client-node's informer (its
 * ListWatch), with the same events and the same restarts, over the agent's own connections. A watch
 * the server ends is resumed from the last resourceVersion; one that expired (410) lists again; any
 * other failure is an `error` event, and `start()` again resumes.
 */
export class Informer {
  private objects = new Map<string, Map<string, KubernetesObject>>();
  private resourceVersion = "";
  private stopped = false;
  private stopWatch?: () => void;
  private readonly callbacks: Record<Verb, Callback[]> = { add: [], update: [], delete: [], error: [], connect: [] };

  constructor(
    private readonly source: WatchSource,
    private readonly path: string,
  ) {}

  /** Lists (unless resuming) and opens the watch; resolves once the watch runs or failed (an `error` event). */
  async start(): Promise<void> {
    this.stopped = false;
    await this.done(null);
  }

  stop(): void {
    this.stopped = true;
    this.stopWatch?.();
    this.stopWatch = undefined;
  }

  /** `change` is add, update and delete. */
  on(verb: Verb | "change", cb: Callback): void {
    if (verb === "change") for (const v of ["add", "update", "delete"] as const) this.callbacks[v].push(cb);
    else this.callbacks[verb].push(cb);
  }

  off(verb: Verb | "change", cb: Callback): void {
    for (const v of verb === "change" ? (["add", "update", "delete"] as const) : [verb]) {
      const i = this.callbacks[v].indexOf(cb);
      if (i >= 0) this.callbacks[v].splice(i, 1);
    }
  }

  /** Every object held, namespace by namespace. */
  list(): KubernetesObject[] {
    const all: KubernetesObject[] = [];
    for (const inNamespace of this.objects.values()) all.push(...inNamespace.values());
    return all;
  }

  private emit(verb: Verb, arg: unknown): void {
    for (const cb of this.callbacks[verb].slice()) cb(arg);
  }

  private async done(error: unknown): Promise<void> {
    this.stopWatch?.();
    this.stopWatch = undefined;
    if (failedWith(error, "expired")) this.resourceVersion = "";
    else if (error) return this.emit("error", error);
    if (this.stopped) return;
    this.emit("connect", undefined);
    if (!this.resourceVersion) {
      let list: ListPage;
      try {
        list = await this.source.listPath(this.path);
      } catch (listError) {
        return this.emit("error", listError);
      }
      this.replaceAll(list.items ?? []);
      this.resourceVersion = list.metadata?.resourceVersion ?? "";
    }
    this.stopWatch = await this.source.watch(
      this.path,
      this.resourceVersion,
      (event) => this.event(event),
      (watchError) => void this.done(watchError),
    );
  }

  private event({ type, object }: WatchEvent): void {
    if (type === "ERROR") {
      // An expired resourceVersion: the server ends the watch next, and the informer lists again.
      if (failureType(object.code ?? 0, "") === "expired") this.resourceVersion = "";
      return;
    }
    if (type === "ADDED" || type === "MODIFIED") this.put(object);
    else if (type === "DELETED") this.remove(object);
    this.resourceVersion = object.metadata?.resourceVersion ?? "";
  }

  /** After a list: what is gone is deleted, the rest added or updated. */
  private replaceAll(items: KubernetesObject[]): void {
    const listed = new Map<string, Set<string>>();
    for (const item of items) {
      const ns = item.metadata?.namespace ?? "";
      if (!listed.has(ns)) listed.set(ns, new Set());
      listed.get(ns)?.add(item.metadata?.name ?? "");
    }
    for (const [ns, held] of this.objects) {
      const names = listed.get(ns);
      if (!names) {
        this.objects.delete(ns);
        for (const obj of held.values()) this.emit("delete", obj);
        continue;
      }
      for (const [name, obj] of held) {
        if (names.has(name)) continue;
        held.delete(name);
        this.emit("delete", obj);
      }
    }
    for (const item of items) this.put(item);
  }

  private put(obj: KubernetesObject): void {
    const ns = obj.metadata?.namespace ?? "";
    let held = this.objects.get(ns);
    if (!held) {
      held = new Map();
      this.objects.set(ns, held);
    }
    const name = obj.metadata?.name ?? "";
    const found = held.get(name);
    if (!found) {
      held.set(name, obj);
      this.emit("add", obj);
    } else if (found.metadata?.resourceVersion === undefined || found.metadata.resourceVersion !== obj.metadata?.resourceVersion) {
      held.set(name, obj);
      this.emit("update", obj);
    }
  }

  private remove(obj: KubernetesObject): void {
    const ns = obj.metadata?.namespace ?? "";
    const held = this.objects.get(ns);
    if (!held?.delete(obj.metadata?.name ?? "")) return;
    this.emit("delete", obj);
    if (held.size === 0) this.objects.delete(ns);
  }
}
