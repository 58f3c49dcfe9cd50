// Fakes for the authoring tests only (index.ts does not export this file): an apiserver holding
// meshplane custom resources, with watches, merge patches (finalizers with their resourceVersion
// precondition, the status subresource) and deletion behind finalizers; and a control plane that
// records what the agent sends.
import type { AuthoredView, DeleteRequest, SubmitRequest, SubmitResult, SyncRequest } from "@meshplane/core/authoring";
import { ApiError } from "@meshplane/core/http-client";
import type { AuthoringClient } from "../control-plane/client";
import { KubeError } from "../kube/failure";
import type { ListPage, WatchEvent } from "../kube/kube";
import { type AuthoredKind, type CustomResource, collectionPath, objectPath } from "./objects";

type Listener = { path: string; send: (e: WatchEvent) => void };

export class FakeApiserver {
  readonly objects = new Map<string, CustomResource>();
  private readonly listeners = new Set<Listener>();
  private version = 1;
  private uids = 0;
  patches: string[] = [];

  private emit(type: WatchEvent["type"], cr: CustomResource): void {
    for (const l of this.listeners) {
      if (l.path === collectionPath(cr.kind) || l.path === collectionPath(cr.kind, cr.metadata.namespace))
        l.send({ type, object: structuredClone(cr) as never });
    }
  }

  /** Creates (or, with the same name, updates the spec and labels of) a custom resource, as kubectl apply does. */
  apply(kind: AuthoredKind, namespace: string, name: string, spec: unknown, labels?: Record<string, string>): CustomResource {
    const path = objectPath({ kind, metadata: { namespace, name } as CustomResource["metadata"] });
    const found = this.objects.get(path);
    const cr: CustomResource = found
      ? {
          ...found,
          metadata: { ...found.metadata, ...(labels ? { labels } : {}), generation: found.metadata.generation + (found.spec === spec ? 0 : 1) },
          spec,
        }
      : { apiVersion: "meshplane.dev/v1", kind, metadata: { namespace, name, uid: `uid-${++this.uids}`, generation: 1, ...(labels ? { labels } : {}) }, spec };
    cr.metadata.resourceVersion = String(++this.version);
    this.objects.set(path, cr);
    this.emit(found ? "MODIFIED" : "ADDED", cr);
    return cr;
  }

  get(kind: AuthoredKind, namespace: string, name: string): CustomResource | undefined {
    return this.objects.get(objectPath({ kind, metadata: { namespace, name } as CustomResource["metadata"] }));
  }

  /** Deletes: at once without finalizers, else marks it (deletionTimestamp) until they are removed. */
  delete(kind: AuthoredKind, namespace: string, name: string): void {
    const path = objectPath({ kind, metadata: { namespace, name } as CustomResource["metadata"] });
    const cr = this.objects.get(path);
    if (!cr) return;
    if ((cr.metadata.finalizers ?? []).length === 0) {
      this.objects.delete(path);
      return this.emit("DELETED", cr);
    }
    cr.metadata.deletionTimestamp = "2031-01-01T00:00:00Z";
    cr.metadata.resourceVersion = String(++this.version);
    this.emit("MODIFIED", cr);
  }

  async listPath(path: string): Promise<ListPage> {
    const items = [...this.objects.values()].filter((cr) => path === collectionPath(cr.kind) || path === collectionPath(cr.kind, cr.metadata.namespace));
    return { items: structuredClone(items) as never, metadata: { resourceVersion: String(this.version) } };
  }

  async watch(path: string, _rv: string, onEvent: (e: WatchEvent) => void): Promise<() => void> {
    const listener = { path, send: onEvent };
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async mergePatch(path: string, body: { metadata?: { resourceVersion?: string; finalizers?: string[] }; status?: Record<string, unknown> }): Promise<void> {
    const status = path.endsWith("/status");
    const cr = this.objects.get(status ? path.slice(0, -"/status".length) : path);
    if (!cr) throw new KubeError(404, "not found");
    this.patches.push(status ? "status" : "finalizers");
    if (status) cr.status = mergeInto(cr.status ?? {}, body.status ?? {}) as CustomResource["status"];
    else {
      if (body.metadata?.resourceVersion !== undefined && body.metadata.resourceVersion !== cr.metadata.resourceVersion) throw new KubeError(409, "conflict");
      cr.metadata.finalizers = body.metadata?.finalizers ?? [];
    }
    cr.metadata.resourceVersion = String(++this.version);
    if (cr.metadata.deletionTimestamp !== undefined && (cr.metadata.finalizers ?? []).length === 0) {
      this.objects.delete(path);
      return this.emit("DELETED", cr);
    }
    this.emit("MODIFIED", cr);
  }
}

function mergeInto(into: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const out = { ...into };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else if (typeof v === "object" && !Array.isArray(v) && typeof out[k] === "object" && out[k] !== null)
      out[k] = mergeInto(out[k] as Record<string, unknown>, v as Record<string, unknown>);
    else out[k] = structuredClone(v);
  }
  return out;
}

/**
 * A control plane for cluster `east` that stores what it is sent (`refuse` may refuse an item, `fail`
 * may fail a whole request) and answers statuses from `state` (ACCEPTED and applied in east by default).
 */
export class FakeAuthoringPlane implements AuthoringClient {
  readonly stored = new Map<string, AuthoredView>();
  readonly requests: { what: "submit" | "delete" | "sync" | "read"; count: number }[] = [];
  refuse: (item: SubmitRequest["items"][number]) => SubmitResult | undefined = () => undefined;
  fail: (what: "submit" | "delete" | "sync" | "read") => Error | undefined = () => undefined;
  state: AuthoredView["status"]["state"] = "ACCEPTED";

  private call(what: "submit" | "delete" | "sync" | "read", count: number): void {
    this.requests.push({ what, count });
    const error = this.fail(what);
    if (error) throw error;
  }

  submitted(): number {
    return this.requests.filter((r) => r.what === "submit").reduce((n, r) => n + r.count, 0);
  }

  async submitResources(request: SubmitRequest) {
    this.call("submit", request.items.length);
    return {
      results: request.items.map((item): SubmitResult => {
        const refused = this.refuse(item);
        if (refused) return refused;
        const name = `${item.source.name}.${item.source.namespace}.east`;
        const before = this.stored.get(name);
        const generation = (before?.generation ?? 0) + 1;
        this.stored.set(name, {
          kind: item.document.kind,
          name,
          generation,
          source: { cluster: "east", ...item.source },
          status: { observedGeneration: generation, state: this.state, clusters: { east: { generation: 1, applied: true } } },
        });
        return { outcome: "stored", name, generation, action: before ? "configured" : "created" };
      }),
    };
  }

  async deleteResources(request: DeleteRequest) {
    this.call("delete", request.items.length);
    return {
      results: request.items.map((ref) => {
        const name = `${ref.name}.${ref.namespace}.east`;
        const held = this.stored.get(name);
        if (!held) return { outcome: "absent" as const };
        if (held.source.uid !== ref.uid) return { outcome: "kept" as const };
        this.stored.delete(name);
        return { outcome: "deleted" as const };
      }),
    };
  }

  async syncResources(request: SyncRequest) {
    this.call("sync", request.present.length);
    const present = new Set(request.present.map((r) => r.uid));
    let deleted = 0;
    for (const [name, view] of this.stored) {
      if (present.has(view.source.uid)) continue;
      this.stored.delete(name);
      deleted++;
    }
    return { deleted };
  }

  async authoredResources() {
    this.call("read", 0);
    return { items: [...this.stored.values()] };
  }
}

/** The control plane unreachable, as the client says it. */
export const unreachable = () => new ApiError(0, "control plane unreachable: connect ECONNREFUSED");
