import { readFileSync } from "node:fs";
import type { Agent } from "node:http";
import { isIPv6 } from "node:net";
import { dirname, isAbsolute, join } from "node:path";
import type { KubeConfig } from "@kubernetes/client-node";
import { parse } from "yaml";

/** The TLS side of the agent's connections to its apiserver. */
export interface KubeTls {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  /** false only when the kubeconfig says insecure-skip-tls-verify. */
  rejectUnauthorized?: boolean;
  servername?: string;
}

/** What one request to the apiserver needs: TLS material (the same object while it is unchanged) and headers. */
export interface KubeConnection {
  tls: KubeTls;
  headers: Record<string, string>;
  /** An agent of the request's own (a proxy named by the kubeconfig); otherwise the caller pools connections. */
  agent?: Agent;
}

/** How the agent reaches its apiserver: in the cluster, or from a kubeconfig file (development and tests). */
export interface KubeAccess {
  server: string;
  /** Where an object of a namespaced kind that names no namespace goes (the context's, else `default`). */
  defaultNamespace: string;
  connect(): Promise<KubeConnection>;
}

const SERVICE_ACCOUNT = "/var/run/secrets/kubernetes.io/serviceaccount";
/** Credentials on disk are read again after this long: a projected token rotates (as client-go does). */
const REREAD_MS = 60_000;

const sameBytes = (a: Buffer | undefined, b: Buffer | undefined) => (a === undefined ? b === undefined : b !== undefined && a.equals(b));
const sameTls = (a: KubeTls, b: KubeTls) =>
  sameBytes(a.ca, b.ca) &&
  sameBytes(a.cert, b.cert) &&
  sameBytes(a.key, b.key) &&
  a.rejectUnauthorized === b.rejectUnauthorized &&
  a.servername === b.servername;

/**
 * Credentials read from files, read again at most every REREAD_MS; the TLS object stays the same
 * while its bytes do, so connections are pooled across reads.
 */
function rereading(read: () => { tls: KubeTls; token?: string }): () => Promise<KubeConnection> {
  let current: { tls: KubeTls; token?: string; at: number } | undefined;
  return async () => {
    if (!current || Date.now() - current.at > REREAD_MS) {
      const next = read();
      current = { tls: current && sameTls(current.tls, next.tls) ? current.tls : next.tls, ...(next.token ? { token: next.token } : {}), at: Date.now() };
    }
    const headers: Record<string, string> = current.token ? { authorization: `Bearer ${current.token}` } : {};
    return { tls: current.tls, headers };
  };
}

/**
 * In the cluster, as @kubernetes/client-node's loadFromCluster sets it up: the service's address from
 * the environment, the service account's CA and (rotating) token from its mounted files.
 */
export function inClusterAccess(env: NodeJS.ProcessEnv = process.env, root = SERVICE_ACCOUNT): KubeAccess {
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  const scheme = port === "80" || port === "8080" || port === "8001" ? "http" : "https";
  let namespace: string | undefined;
  try {
    namespace = readFileSync(`${root}/namespace`, "utf8");
  } catch {
    // no namespace file: objects without a namespace go to `default`
  }
  return {
    server: `${scheme}://${host && isIPv6(host) ? `[${host}]` : host}:${port}`,
    defaultNamespace: namespace || "default",
    connect: rereading(() => ({ tls: { ca: readFileSync(`${root}/ca.crt`) }, token: readFileSync(`${root}/token`, "utf8") })),
  };
}

type Entry<K extends string> = { name?: unknown } & Partial<Record<K, Record<string, unknown>>>;
const str = (v: unknown) => (typeof v === "string" && v !== "" ? v : undefined);
/** The entry of `list` named `name` (undefined if none, or if the name is not unique: client-node refuses those). */
function named<K extends string>(list: Entry<K>[] | undefined, name: unknown, key: K): Record<string, unknown> | undefined {
  const found = Array.isArray(list) ? list.filter((e) => e?.name === name) : [];
  return found.length === 1 ? found[0]?.[key] : undefined;
}
const CLUSTER_FIELDS = new Set(["server", "certificate-authority", "certificate-authority-data", "insecure-skip-tls-verify", "tls-server-name"]);
const USER_FIELDS = new Set(["token", "token-file", "client-certificate", "client-certificate-data", "client-key", "client-key-data"]);

/**
 * A kubeconfig whose current context names an https server and a user with a token or a client
 * certificate — what the agent's tests and a local cluster use — read here; undefined for anything
 * else (exec plugins, auth providers, proxies, impersonation…), which @kubernetes/client-node reads.
 */
export function simpleKubeconfig(text: string, file: string): KubeAccess | undefined {
  const doc = parse(text) as { "current-context"?: unknown; contexts?: Entry<"context">[]; clusters?: Entry<"cluster">[]; users?: Entry<"user">[] } | null;
  const context = named(doc?.contexts, doc?.["current-context"], "context");
  const cluster = named(doc?.clusters, context?.cluster, "cluster");
  const user = named(doc?.users, context?.user, "user");
  if (!cluster || !user || typeof cluster.server !== "string" || !cluster.server.startsWith("https://")) return undefined;
  if (Object.keys(cluster).some((k) => !CLUSTER_FIELDS.has(k)) || Object.keys(user).some((k) => !USER_FIELDS.has(k))) return undefined;
  // As client-node: file paths relative to the kubeconfig; a file wins over inline data.
  const bytes = (path: unknown, data: unknown): Buffer | undefined => {
    const p = str(path);
    if (p) return readFileSync(isAbsolute(p) ? p : join(dirname(file), p));
    const d = str(data);
    return d ? Buffer.from(d, "base64") : undefined;
  };
  const tokenFile = str(user["token-file"]);
  const token = str(user.token) ?? (tokenFile ? readFileSync(tokenFile, "utf8") : undefined);
  const servername = str(cluster["tls-server-name"]);
  const read = () => {
    const tls: KubeTls = {};
    const ca = bytes(cluster["certificate-authority"], cluster["certificate-authority-data"]);
    const cert = bytes(user["client-certificate"], user["client-certificate-data"]);
    const key = bytes(user["client-key"], user["client-key-data"]);
    if (ca) tls.ca = ca;
    if (cert) tls.cert = cert;
    if (key) tls.key = key;
    if (cluster["insecure-skip-tls-verify"] === true) tls.rejectUnauthorized = false;
    if (servername) tls.servername = servername;
    return { tls, ...(token ? { token } : {}) };
  };
  read(); // unreadable files fail at start, as with client-node
  return { server: cluster.server.replace(/\/$/, ""), defaultNamespace: str(context?.namespace) ?? "default", connect: rereading(read) };
}

/**
 * Access through @kubernetes/client-node's KubeConfig: every kubeconfig it understands. The client
 * is loaded only here, so an agent in its cluster never loads it (docs/agent.md, "Measured").
 */
export function clientNodeAccess(kc: KubeConfig): KubeAccess {
  const cluster = kc.getCurrentCluster();
  let tls: KubeTls = {};
  return {
    server: cluster?.server ?? "",
    defaultNamespace: kc.getContextObject(kc.getCurrentContext())?.namespace || "default",
    async connect() {
      const options: { headers?: Record<string, string>; auth?: string; agent?: Agent } & KubeTls = {};
      await kc.applyToHTTPSOptions(options as never);
      const next: KubeTls = {};
      for (const k of ["ca", "cert", "key"] as const) {
        const v = options[k];
        if (v) next[k] = Buffer.from(v);
      }
      if (options.rejectUnauthorized !== undefined) next.rejectUnauthorized = options.rejectUnauthorized;
      if (options.servername) next.servername = options.servername;
      if (!sameTls(tls, next)) tls = next;
      const headers = { ...options.headers };
      if (options.auth) headers.authorization = `Basic ${Buffer.from(options.auth).toString("base64")}`;
      return { tls, headers, ...(cluster?.proxyUrl && options.agent ? { agent: options.agent } : {}) };
    },
  };
}

/** Access from a kubeconfig file: read here when it is simple, else by @kubernetes/client-node, loaded now. */
export async function kubeconfigAccess(file: string): Promise<KubeAccess> {
  const simple = simpleKubeconfig(readFileSync(file, "utf8"), file);
  if (simple) return simple;
  const { loadKubeConfig } = await import("./config-file");
  return clientNodeAccess(loadKubeConfig(file));
}
