import { Agent, type RequestOptions, request as httpsRequest } from "node:https";
import { type KubeConfig, KubernetesObjectApi, type KubernetesObject, PatchStrategy } from "@kubernetes/client-node";

/** The one field manager every meshplane write uses, so server-side apply knows what we own. */
export const FIELD_MANAGER = "meshplane-agent";

export interface ObjectRef {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
}

/** A Kubernetes API error with its HTTP status and the server's message (what users need to read). */
export class KubeError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function asKubeError(error: unknown): KubeError {
  const e = error as { code?: number; body?: unknown; message?: string };
  let message = e.message ?? String(error);
  try {
    const body = typeof e.body === "string" ? (JSON.parse(e.body) as { message?: string }) : (e.body as { message?: string } | undefined);
    if (body?.message) message = body.message;
  } catch {
    // not JSON: keep the client's message
  }
  return new KubeError(e.code ?? 0, message);
}

/** What the agent does to its cluster; one adapter over @kubernetes/client-node. */
export class Kube {
  private readonly objects: KubernetesObjectApi;
  private agent?: Agent;

  constructor(readonly config: KubeConfig) {
    this.objects = KubernetesObjectApi.makeApiClient(config);
  }

  /**
   * One request on a kept-alive connection, for the calls the agent repeats all the time (its Lease
   * every few seconds): the generated client opens a new TLS connection per call, which was most of
   * the agent's idle CPU. Throws KubeError on any status ≥ 400; undefined for 404 on GET.
   */
  async raw<T>(method: "GET" | "POST" | "PUT", path: string, body?: unknown): Promise<T | undefined> {
    const server = new URL(this.config.getCurrentCluster()?.server ?? "");
    const options: RequestOptions = { method, headers: { accept: "application/json" } };
    await this.config.applyToHTTPSOptions(options);
    this.agent ??= new Agent({ keepAlive: true, maxSockets: 2, ca: options.ca, cert: options.cert, key: options.key, rejectUnauthorized: options.rejectUnauthorized ?? true });
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = httpsRequest(
        { protocol: server.protocol, hostname: server.hostname, port: server.port, path: `${server.pathname.replace(/\/$/, "")}${path}`, method, agent: this.agent, headers: { ...(options.headers as Record<string, string>), ...(payload ? { "content-type": "application/json" } : {}) } },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => (text += chunk));
          res.on("end", () => {
            const status = res.statusCode ?? 0;
            if (status === 404 && method === "GET") return resolve(undefined);
            if (status >= 400) {
              let message = text;
              try {
                message = (JSON.parse(text) as { message?: string }).message ?? text;
              } catch {
                // not JSON
              }
              return reject(new KubeError(status, message));
            }
            resolve(text ? (JSON.parse(text) as T) : undefined);
          });
        },
      );
      req.on("error", (error) => reject(new KubeError(0, error.message)));
      req.end(payload);
    });
  }

  close(): void {
    this.agent?.destroy();
  }

  /** Server-side apply with our field manager, forcing ownership of the fields we set. Returns the stored object. */
  async apply<T extends KubernetesObject>(obj: T): Promise<T> {
    try {
      return await this.objects.patch(obj, undefined, undefined, FIELD_MANAGER, true, PatchStrategy.ServerSideApply);
    } catch (error) {
      throw asKubeError(error);
    }
  }

  async read<T extends KubernetesObject>(ref: ObjectRef): Promise<T | undefined> {
    try {
      return (await this.objects.read({ apiVersion: ref.apiVersion, kind: ref.kind, metadata: { name: ref.name, ...(ref.namespace ? { namespace: ref.namespace } : {}) } })) as T;
    } catch (error) {
      const e = asKubeError(error);
      if (e.status === 404) return undefined;
      throw e;
    }
  }

  async create<T extends KubernetesObject>(obj: T): Promise<T> {
    try {
      return await this.objects.create(obj, undefined, undefined, FIELD_MANAGER);
    } catch (error) {
      throw asKubeError(error);
    }
  }

  async replace<T extends KubernetesObject>(obj: T): Promise<T> {
    try {
      return await this.objects.replace(obj, undefined, undefined, FIELD_MANAGER);
    } catch (error) {
      throw asKubeError(error);
    }
  }

  /**
   * A JSON merge patch (RFC 7386) of the object `ref` names, for the few fields the agent sets without
   * declaring the whole object: a restart annotation on a workload, a progress note on cacerts. Server-
   * side apply would drop every field we own but omit. Throws KubeError (404 when the object is gone).
   */
  async patch(ref: ObjectRef, body: { metadata?: Record<string, unknown>; [field: string]: unknown }): Promise<void> {
    const metadata = { ...body.metadata, name: ref.name, ...(ref.namespace ? { namespace: ref.namespace } : {}) };
    try {
      await this.objects.patch({ ...body, apiVersion: ref.apiVersion, kind: ref.kind, metadata }, undefined, undefined, FIELD_MANAGER, undefined, PatchStrategy.MergePatch);
    } catch (error) {
      throw asKubeError(error);
    }
  }

  /** Deletes; an object already gone counts as deleted. */
  async delete(ref: ObjectRef): Promise<void> {
    try {
      await this.objects.delete({ apiVersion: ref.apiVersion, kind: ref.kind, metadata: { name: ref.name, ...(ref.namespace ? { namespace: ref.namespace } : {}) } });
    } catch (error) {
      const e = asKubeError(error);
      if (e.status !== 404) throw e;
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
      do {
        const page = await this.objects.list(apiVersion, kind, namespace, undefined, undefined, undefined, undefined, labelSelector || undefined, 500, token);
        out.push(...page.items);
        // eslint-disable-next-line no-underscore-dangle -- the client's name for the list continue token
        token = page.metadata?._continue || undefined;
      } while (token);
    } catch (error) {
      if (error instanceof Error && error.message.startsWith("Unrecognized API version and kind")) return [];
      const e = asKubeError(error);
      if (e.status === 404) return [];
      throw e;
    }
    return out;
  }
}

/** The calls the sync stages make; tests pass a fake that records them. */
export type KubeClient = Pick<Kube, "read" | "apply" | "patch" | "list" | "delete">;
