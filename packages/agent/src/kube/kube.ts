import type { ClientRequest, IncomingMessage } from "node:http";
import { Agent, type RequestOptions, request as httpsRequest } from "node:https";
import { createSecureContext } from "node:tls";
import type { KubeConfig, KubernetesObject } from "@kubernetes/client-node";
import { type KubeAccess, type KubeTls, clientNodeAccess } from "./access";
import { KubeError, failedWith } from "./failure";

/** The one field manager every meshplane write uses, so server-side apply knows what we own. */
export const FIELD_MANAGER = "meshplane-agent";

export interface ObjectRef {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
}

/** A watch event as the apiserver streams it. */
export interface WatchEvent {
  type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";
  object: KubernetesObject & { code?: number };
}

/** A page of a list, as the apiserver sends it. */
export interface ListPage {
  items: KubernetesObject[];
  metadata?: { resourceVersion?: string; continue?: string };
}

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
interface ApiResource {
  name: string;
  kind: string;
  namespaced: boolean;
}

/** Connections pooled per TLS material: kept alive for requests, one each for watches. */
interface Pool {
  tls: KubeTls;
  requests: Agent;
  watches: Agent;
}

const UNRECOGNIZED = "Unrecognized API version and kind";

/** The server's message from an error answer (a Status object), else its text. */
function messageOf(text: string): string {
  try {
    return (JSON.parse(text) as { message?: string }).message ?? text;
  } catch {
    return text;
  }
}

/** The whole body of an answer. */
function textOf(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    res.setEncoding("utf8");
    res.on("data", (chunk: string) => (text += chunk));
    res.on("end", () => resolve(text));
    res.on("error", (error) => reject(new KubeError(0, error.message)));
  });
}

/**
 * What the agent does to its cluster, over plain HTTPS to the apiserver: requests on kept-alive
 * connections (one TLS context for all), and watches. Paths of objects are found as
 * @kubernetes/client-node's KubernetesObjectApi finds them (the API group's resource list, cached),
 * and bodies are sent and answers returned as the apiserver's JSON.
 */
export class Kube {
  private readonly access: KubeAccess;
  private pool?: Pool;
  private readonly resources = new Map<string, ApiResource[]>();

  constructor(config: KubeAccess | KubeConfig) {
    this.access = "applyToHTTPSOptions" in config ? clientNodeAccess(config) : config;
  }

  /**
   * Sends one request and resolves with the answer as it starts (its status and headers); rejects
   * with a KubeError (status 0) when there is none. Watches get connections of their own.
   */
  private async open(
    method: Method,
    path: string,
    body?: { text: string; type: string },
    watch = false,
  ): Promise<{ req: ClientRequest; res: IncomingMessage }> {
    let connection;
    try {
      connection = await this.access.connect();
    } catch (error) {
      throw new KubeError(0, (error as Error).message);
    }
    const server = new URL(this.access.server);
    const options: RequestOptions = {
      protocol: server.protocol,
      // A bracketed IPv6 address is a URL's notation, not a host name.
      hostname: server.hostname.replace(/^\[(.*)\]$/, "$1"),
      port: server.port,
      path: `${server.pathname.replace(/\/$/, "")}${path}`,
      method,
      agent: connection.agent ?? this.agents(connection.tls)[watch ? "watches" : "requests"],
      headers: { accept: "application/json", ...connection.headers, ...(body ? { "content-type": body.type } : {}) },
    };
    const attempt = (retry: boolean) =>
      new Promise<{ req: ClientRequest; res: IncomingMessage }>((resolve, reject) => {
        const req = httpsRequest(options, (res) => resolve({ req, res }));
        if (watch) req.on("socket", (socket) => socket.setKeepAlive(true, 30_000));
        req.on("error", (error) => {
          // A kept-alive connection the server closed as this request went out: the request never
          // reached it, so it goes once more on a new connection (as Node's documentation advises).
          if (retry && req.reusedSocket && (error as NodeJS.ErrnoException).code === "ECONNRESET") resolve(attempt(false));
          else reject(new KubeError(0, error.message));
        });
        req.end(body?.text);
      });
    return attempt(true);
  }

  /** One request and its whole answer. */
  private async send(method: Method, path: string, body?: { text: string; type: string }): Promise<{ status: number; text: string }> {
    const { res } = await this.open(method, path, body);
    return { status: res.statusCode ?? 0, text: await textOf(res) };
  }

  private agents(tls: KubeTls): Pool {
    if (this.pool?.tls !== tls) {
      const options = {
        secureContext: createSecureContext({ ca: tls.ca, cert: tls.cert, key: tls.key }),
        ...(tls.rejectUnauthorized === false ? { rejectUnauthorized: false } : {}),
        ...(tls.servername ? { servername: tls.servername } : {}),
      };
      this.pool = { tls, requests: new Agent({ ...options, keepAlive: true, maxFreeSockets: 4 }), watches: new Agent(options) };
    }
    return this.pool;
  }

  /** JSON of a successful answer; a KubeError with the server's message otherwise. */
  private async call<T>(method: Method, path: string, body?: { text: string; type: string }): Promise<T> {
    const res = await this.send(method, path, body);
    if (res.status < 200 || res.status > 299) throw new KubeError(res.status, messageOf(res.text));
    return (res.text ? JSON.parse(res.text) : undefined) as T;
  }

  /**
   * One request for the calls the agent repeats all the time (its Lease every few seconds). Throws
   * KubeError on any status ≥ 400; undefined for 404 on GET.
   */
  async raw<T>(method: "GET" | "POST" | "PUT", path: string, body?: unknown): Promise<T | undefined> {
    const res = await this.send(method, path, body === undefined ? undefined : { text: JSON.stringify(body), type: "application/json" });
    if (res.status === 404 && method === "GET") return undefined;
    if (res.status >= 400) throw new KubeError(res.status, messageOf(res.text));
    return (res.text ? JSON.parse(res.text) : undefined) as T;
  }

  /** A list of `path` (all of it, in one answer), as an informer starts from. */
  async listPath(path: string): Promise<ListPage> {
    return this.call("GET", path);
  }

  /**
   * Watches `path` from `resourceVersion`: `onEvent` for every event, then `done` once — null when
   * the server ended the watch, an error (a KubeError with the status when it refused) otherwise.
   * Resolves once the server answered, with a function that stops the watch (then `done` is not called).
   */
  async watch(path: string, resourceVersion: string, onEvent: (event: WatchEvent) => void, done: (error: unknown) => void): Promise<() => void> {
    let stopped = false;
    let ended = false;
    const end = (error: unknown) => {
      if (ended || stopped) return;
      ended = true;
      done(error);
    };
    let opened;
    try {
      // `path` may carry its own query (a fieldSelector): the watch's parameters join it.
      const query = `watch=true&resourceVersion=${encodeURIComponent(resourceVersion)}`;
      opened = await this.open("GET", `${path}${path.includes("?") ? "&" : "?"}${query}`, undefined, true);
    } catch (error) {
      end(error);
      return () => undefined;
    }
    const { req, res } = opened;
    if (res.statusCode !== 200) {
      end(new KubeError(res.statusCode ?? 0, messageOf(await textOf(res).catch((error: Error) => error.message))));
      return () => undefined;
    }
    let buffered = "";
    res.setEncoding("utf8");
    res.on("data", (chunk: string) => {
      const lines = (buffered + chunk).split("\n");
      buffered = lines.pop() ?? "";
      for (const line of lines) {
        if (stopped || !line.trim()) continue;
        let event: WatchEvent;
        try {
          event = JSON.parse(line) as WatchEvent;
        } catch {
          continue; // as client-node does: a line that is not JSON is skipped
        }
        onEvent(event);
      }
    });
    res.on("error", (error) => end(error));
    res.on("close", () => end(null));
    return () => {
      stopped = true;
      req.destroy();
    };
  }

  close(): void {
    this.pool?.requests.destroy();
    this.pool?.watches.destroy();
  }

  /** The group/version's resource of `kind`, from its resource list (cached; fetched again for a kind not in it). */
  private async resource(apiVersion: string, kind: string): Promise<ApiResource | undefined> {
    const known = this.resources.get(apiVersion)?.find((r) => r.kind === kind);
    if (known) return known;
    try {
      const list = await this.call<{ resources: ApiResource[] }>("GET", apiVersionPath(apiVersion));
      this.resources.set(apiVersion, list.resources);
      return list.resources.find((r) => r.kind === kind);
    } catch (error) {
      throw new KubeError(
        error instanceof KubeError ? error.status : 0,
        `Failed to fetch resource metadata for ${apiVersion}/${kind}: ${(error as Error).message}`,
      );
    }
  }

  /** An object's path, or its collection's for create and list (KubernetesObjectApi's rules, default namespace included). */
  private async pathOf(
    spec: { apiVersion?: string; kind?: string; metadata?: { name?: string; namespace?: string } },
    action: "create" | "list" | "object",
  ): Promise<string> {
    if (!spec.kind) throw new KubeError(0, "Required spec property kind is not set", "invalid");
    spec.apiVersion ||= "v1";
    spec.metadata ??= {};
    const resource = await this.resource(spec.apiVersion, spec.kind);
    if (!resource) throw new KubeError(0, `${UNRECOGNIZED}: ${spec.apiVersion} ${spec.kind}`, "not-served");
    // As KubernetesObjectApi: the object itself gets the default namespace, so the body names it too.
    if (resource.namespaced && !spec.metadata.namespace && action !== "list") spec.metadata.namespace = this.access.defaultNamespace;
    const parts = [apiVersionPath(spec.apiVersion)];
    if (resource.namespaced && spec.metadata.namespace) parts.push("namespaces", encodeURIComponent(spec.metadata.namespace));
    parts.push(resource.name);
    if (action === "object") {
      if (!spec.metadata.name) throw new KubeError(0, "Required spec property name is not set", "invalid");
      parts.push(encodeURIComponent(spec.metadata.name));
    }
    return parts.join("/").toLowerCase();
  }

  /** Server-side apply with our field manager, forcing ownership of the fields we set. Returns the stored object. */
  async apply<T extends KubernetesObject>(obj: T): Promise<T> {
    const path = await this.pathOf(obj, "object");
    return this.call("PATCH", `${path}?fieldManager=${FIELD_MANAGER}&force=true`, { text: JSON.stringify(obj), type: "application/apply-patch+yaml" });
  }

  /**
   * Server-side apply under `fieldManager`, never forced: a field another manager owns with another
   * value is a conflict (KubeError `conflict`), not overwritten. For the binding label on a user's
   * Service (docs/agent.md#waypoint-bindings), whose manager owns that label and nothing else.
   */
  async applyAs<T extends KubernetesObject>(obj: T, fieldManager: string): Promise<T> {
    const path = await this.pathOf(obj, "object");
    return this.call("PATCH", `${path}?fieldManager=${encodeURIComponent(fieldManager)}`, { text: JSON.stringify(obj), type: "application/apply-patch+yaml" });
  }

  async read<T extends KubernetesObject>(ref: ObjectRef): Promise<T | undefined> {
    try {
      return await this.call("GET", await this.pathOf(specOf(ref), "object"));
    } catch (error) {
      if (failedWith(error, "not-found")) return undefined;
      throw error;
    }
  }

  async create<T extends KubernetesObject>(obj: T): Promise<T> {
    const path = await this.pathOf(obj, "create");
    return this.call("POST", `${path}?fieldManager=${FIELD_MANAGER}`, { text: JSON.stringify(obj), type: "application/json" });
  }

  async replace<T extends KubernetesObject>(obj: T): Promise<T> {
    const path = await this.pathOf(obj, "object");
    return this.call("PUT", `${path}?fieldManager=${FIELD_MANAGER}`, { text: JSON.stringify(obj), type: "application/json" });
  }

  /**
   * A JSON merge patch (RFC 7386) of the object `ref` names, for the few fields the agent sets without
   * declaring the whole object: a restart annotation on a workload, a progress note on cacerts. Server-
   * side apply would drop every field we own but omit. Throws KubeError (404 when the object is gone).
   */
  async patch(ref: ObjectRef, body: { metadata?: Record<string, unknown>; [field: string]: unknown }): Promise<void> {
    const spec = {
      ...body,
      apiVersion: ref.apiVersion,
      kind: ref.kind,
      metadata: { ...body.metadata, name: ref.name, ...(ref.namespace ? { namespace: ref.namespace } : {}) },
    };
    const path = await this.pathOf(spec, "object");
    await this.call("PATCH", `${path}?fieldManager=${FIELD_MANAGER}`, { text: JSON.stringify(spec), type: "application/merge-patch+json" });
  }

  /**
   * A JSON merge patch of the object or subresource at `path` (a custom resource's finalizers, its
   * `/status`), for a kind whose path the caller knows. Throws KubeError (409 when the patch carries
   * a resourceVersion that is no longer the object's).
   */
  async mergePatch(path: string, body: unknown): Promise<void> {
    await this.call("PATCH", `${path}?fieldManager=${FIELD_MANAGER}`, { text: JSON.stringify(body), type: "application/merge-patch+json" });
  }

  /** Deletes; an object already gone counts as deleted. */
  async delete(ref: ObjectRef): Promise<void> {
    try {
      await this.call("DELETE", await this.pathOf(specOf(ref), "object"));
    } catch (error) {
      if (!failedWith(error, "not-found")) throw error;
    }
  }

  /**
   * Every object of a kind matching `labelSelector` (empty = all) in `namespace`, or across all
   * namespaces when it is undefined. A kind the cluster does not serve (its CRD is not installed) has
   * no objects, rather than being an error.
   */
  async list(apiVersion: string, kind: string, labelSelector: string, namespace?: string): Promise<KubernetesObject[]> {
    const out: KubernetesObject[] = [];
    let token: string | undefined;
    try {
      const path = await this.pathOf({ apiVersion, kind, metadata: namespace ? { namespace } : {} }, "list");
      do {
        const query = new URLSearchParams({ ...(labelSelector ? { labelSelector } : {}), limit: "500", ...(token ? { continue: token } : {}) });
        const page = await this.call<ListPage>("GET", `${path}?${query}`);
        out.push(...page.items);
        token = page.metadata?.continue || undefined;
      } while (token);
    } catch (error) {
      if (failedWith(error, "not-found") || failedWith(error, "not-served")) return [];
      throw error;
    }
    return out;
  }
}

function apiVersionPath(apiVersion: string): string {
  return `/${apiVersion.includes("/") ? "apis" : "api"}/${apiVersion}`;
}

function specOf(ref: ObjectRef): { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } } {
  return { apiVersion: ref.apiVersion, kind: ref.kind, metadata: { name: ref.name, ...(ref.namespace ? { namespace: ref.namespace } : {}) } };
}

/** The calls the sync stages make; tests pass a fake that records them. */
export type KubeClient = Pick<Kube, "read" | "apply" | "applyAs" | "patch" | "list" | "delete">;
