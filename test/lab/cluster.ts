/**
 * The lab: a real Kubernetes control plane (etcd + kube-apiserver) without kubelets or containers.
 *
 * `startCluster` runs etcd and kube-apiserver as child processes on free 127.0.0.1 ports, with RBAC,
 * static bearer tokens, and the Istio, SMI and Gateway API CRDs installed, so every object a test writes goes
 * through the real schema validation and authorization. No controllers run: tests create
 * ReplicaSets/Pods themselves and set status through the `/status` subresource.
 *
 * The binaries come from `scripts/lab/build.sh` (built from the Go module proxy, cached under
 * `${MESHPLANE_CACHE:-$HOME/.cache/meshplane}/lab`); `ensureLabBinaries` runs it when they are missing.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { freePort } from "../../functions/local/dynamo-local";
import { X509Certificate, generateKeyPairSync, randomBytes } from "node:crypto";
import { existsSync, openSync, closeSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import https from "node:https";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

// ---------------------------------------------------------------------------------------------
// Binaries

export interface LabBinaries {
  kubeApiserver: string;
  etcd: string;
  /** JSON array of the Istio CustomResourceDefinitions (from the istio.io/api module). */
  istioCrds: string;
  /** JSON array of the SMI CustomResourceDefinitions (from the github.com/openservicemesh/osm module). */
  smiCrds: string;
  /** JSON array of the Gateway API CustomResourceDefinitions, standard channel (from the sigs.k8s.io/gateway-api module). */
  gatewayApiCrds: string;
}

export interface LabVersions {
  KUBERNETES_VERSION: string;
  ETCD_VERSION: string;
  ISTIO_API_VERSION: string;
  OSM_VERSION: string;
  GATEWAY_API_VERSION: string;
}

const BUILD_SCRIPT = fileURLToPath(new URL("../../scripts/lab/build.sh", import.meta.url));
const VERSIONS_FILE = fileURLToPath(new URL("../../scripts/lab/versions.env", import.meta.url));

/** The versions pinned in scripts/lab/versions.env. */
export function labVersions(): LabVersions {
  const values: Record<string, string> = {};
  for (const line of readFileSync(VERSIONS_FILE, "utf8").split("\n")) {
    const m = /^\s*([A-Z0-9_]+)=(\S*)\s*$/.exec(line);
    if (m?.[1] && m[2] !== undefined) values[m[1]] = m[2];
  }
  const get = (k: keyof LabVersions): string => {
    const v = values[k];
    if (!v) throw new Error(`${VERSIONS_FILE} does not set ${k}`);
    return v;
  };
  return {
    KUBERNETES_VERSION: get("KUBERNETES_VERSION"),
    ETCD_VERSION: get("ETCD_VERSION"),
    ISTIO_API_VERSION: get("ISTIO_API_VERSION"),
    OSM_VERSION: get("OSM_VERSION"),
    GATEWAY_API_VERSION: get("GATEWAY_API_VERSION"),
  };
}

/** Where scripts/lab/build.sh puts its outputs (they may not exist yet). */
export function labBinaryPaths(): LabBinaries {
  const v = labVersions();
  const lab = join(process.env.MESHPLANE_CACHE || join(homedir(), ".cache", "meshplane"), "lab");
  return {
    kubeApiserver: join(lab, "bin", `kube-apiserver-${v.KUBERNETES_VERSION}`),
    etcd: join(lab, "bin", `etcd-${v.ETCD_VERSION}`),
    istioCrds: join(lab, "crds", `istio-api-${v.ISTIO_API_VERSION}.json`),
    smiCrds: join(lab, "crds", `smi-osm-${v.OSM_VERSION}.json`),
    gatewayApiCrds: join(lab, "crds", `gateway-api-${v.GATEWAY_API_VERSION}.json`),
  };
}

let ensuring: Promise<LabBinaries> | undefined;

/**
 * The cached binaries and CRD files; runs scripts/lab/build.sh first when any is missing (the first
 * build of kube-apiserver takes many minutes; the script's progress goes to this process's stderr).
 */
export function ensureLabBinaries(): Promise<LabBinaries> {
  const paths = labBinaryPaths();
  if (Object.values(paths).every((p) => existsSync(p))) return Promise.resolve(paths);
  ensuring ??= runBuild().finally(() => {
    ensuring = undefined;
  });
  return ensuring;
}

function runBuild(): Promise<LabBinaries> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", [BUILD_SCRIPT], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.once("error", reject);
    child.once("exit", (code) => {
      if (code !== 0) return reject(new Error(`scripts/lab/build.sh exited with ${code}`));
      const kv: Record<string, string> = {};
      for (const line of out.split("\n")) {
        const i = line.indexOf("=");
        if (i > 0) kv[line.slice(0, i)] = line.slice(i + 1);
      }
      const { KUBE_APISERVER, ETCD, ISTIO_CRDS, SMI_CRDS, GATEWAY_API_CRDS } = kv;
      if (!KUBE_APISERVER || !ETCD || !ISTIO_CRDS || !SMI_CRDS || !GATEWAY_API_CRDS) return reject(new Error(`unexpected build.sh output:\n${out}`));
      resolve({ kubeApiserver: KUBE_APISERVER, etcd: ETCD, istioCrds: ISTIO_CRDS, smiCrds: SMI_CRDS, gatewayApiCrds: GATEWAY_API_CRDS });
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Cluster

export interface LabToken {
  token: string;
  user: string;
  /** Defaults to the user name. */
  uid?: string;
  groups?: string[];
}

/** The user and groups the apiserver gives a service account's own token, for a static token. */
export function serviceAccountIdentity(namespace: string, name: string): { user: string; groups: string[] } {
  return {
    user: `system:serviceaccount:${namespace}:${name}`,
    groups: ["system:serviceaccounts", `system:serviceaccounts:${namespace}`],
  };
}

export interface StartClusterOptions {
  name: string;
  /**
   * Where etcd's data, the certificates, the token file and the logs go. Kept on stop() (and reused by
   * a later start with the same dir). Default: a fresh temp dir, removed on stop().
   */
  dataDir?: string;
  /** Extra static bearer tokens (the token file is read once, at start). */
  tokens?: LabToken[];
  /** Which CRD sets to install (default all three). */
  crds?: { istio?: boolean; smi?: boolean; gatewayApi?: boolean };
  /** More CustomResourceDefinition objects to install and wait for. */
  extraCrds?: object[];
  /** Extra kube-apiserver flags, e.g. ["--v=4"]; later flags override earlier ones. */
  apiserverArgs?: string[];
  /** How long to wait for etcd, the apiserver and the CRDs (default 180 s). */
  startTimeoutMs?: number;
}

/**
 * The loose shape of what the apiserver answers: an object, a list (`items`) or a Status (`reason`,
 * `message`). Pass a type argument to `request` for more.
 */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: unknown[];
    [key: string]: unknown;
  };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown> | string;
  items?: KubeObject[];
  reason?: string;
  message?: string;
  code?: number;
  details?: { causes?: { reason?: string; message?: string; field?: string }[]; [key: string]: unknown };
  [key: string]: unknown;
}

export interface LabResponse<T = KubeObject> {
  status: number;
  ok: boolean;
  /** Parsed JSON when the response is JSON, else the text. */
  body: T;
  headers: Record<string, string | string[] | undefined>;
}

export interface LabCluster {
  name: string;
  /** https://127.0.0.1:<port> */
  url: string;
  /** A static token of user `lab-admin` in group `system:masters`. */
  adminToken: string;
  /** The CA that signed the apiserver's serving certificate (self-signed by kube-apiserver). */
  caCertPem: string;
  etcdUrl: string;
  dataDir: string;
  versions: LabVersions;
  /** Paths of etcd's and kube-apiserver's combined stdout/stderr logs. */
  logs: { etcd: string; apiserver: string };
  /** A kubeconfig (YAML) for this cluster with the CA and a bearer token (default: the admin's). */
  kubeconfig(token?: string): string;
  /** Writes kubeconfig(token) to a file in the data dir (or `path`) and returns its path. */
  writeKubeconfig(token?: string, path?: string): Promise<string>;
  /**
   * One HTTP request to the apiserver with a bearer token (default: the admin's). An object body is
   * sent as JSON (PATCH as a merge patch unless `contentType` says otherwise). Never throws for an
   * HTTP status: check `status`.
   */
  request<T = KubeObject>(method: string, path: string, body?: unknown, token?: string, options?: { contentType?: string }): Promise<LabResponse<T>>;
  /** Kills kube-apiserver and etcd; removes the data dir unless it was given. Idempotent. */
  stop(): Promise<void>;
}

const live = new Set<ChildProcess>();
let exitHookInstalled = false;
function track(child: ChildProcess): void {
  live.add(child);
  child.once("exit", () => live.delete(child));
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // Never leave an apiserver or etcd behind when the test process dies.
    process.once("exit", () => {
      for (const c of live) c.kill("SIGKILL");
    });
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function tail(path: string, lines = 40): string {
  try {
    return readFileSync(path, "utf8").split("\n").slice(-lines).join("\n");
  } catch {
    return "";
  }
}

const watchdogs = new WeakMap<ChildProcess, ChildProcess>();

function startProcess(bin: string, args: string[], logPath: string): ChildProcess {
  const fd = openSync(logPath, "a");
  try {
    const child = spawn(bin, args, { stdio: ["ignore", fd, fd] });
    track(child);
    // A test worker killed by a signal runs no "exit" hook: a detached watchdog ends the child
    // once this process is gone, so no apiserver or etcd outlives its test run.
    if (child.pid !== undefined) {
      const script = `while kill -0 ${process.pid} 2>/dev/null && kill -0 ${child.pid} 2>/dev/null; do sleep 1; done; kill -TERM ${child.pid} 2>/dev/null; sleep 5; kill -KILL ${child.pid} 2>/dev/null; exit 0`;
      const watchdog = spawn("bash", ["-c", script], { detached: true, stdio: "ignore" });
      watchdog.unref();
      watchdogs.set(child, watchdog);
      child.once("exit", () => watchdog.kill("SIGKILL"));
    }
    return child;
  } finally {
    closeSync(fd);
  }
}

async function stopProcess(child: ChildProcess | undefined, graceMs = 10_000): Promise<void> {
  if (!child) return;
  if (child.exitCode !== null || child.signalCode !== null) {
    watchdogs.get(child)?.kill("SIGKILL");
    return;
  }
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
  await exited;
  clearTimeout(timer);
}

function isRunning(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

async function waitFor(what: string, child: ChildProcess, logPath: string, deadline: number, check: () => Promise<boolean>): Promise<void> {
  for (;;) {
    if (!isRunning(child)) throw new Error(`${what} exited (${child.exitCode ?? child.signalCode}) during start; ${logPath}:\n${tail(logPath)}`);
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${what} not ready in time; ${logPath}:\n${tail(logPath)}`);
    await sleep(200);
  }
}

function httpGetOk(url: string): Promise<boolean> {
  return fetch(url, { signal: AbortSignal.timeout(2000) }).then(async (r) => r.ok && (await r.text()).includes("true"));
}

function csvField(s: string): string {
  if (/[",\n]/.test(s)) return `"${s.replaceAll('"', '""')}"`;
  return s;
}

function tokenFile(tokens: LabToken[]): string {
  return (
    tokens
      .map((t) => {
        const fields = [t.token, t.user, t.uid ?? t.user];
        if (t.groups && t.groups.length > 0) fields.push(csvField(t.groups.join(",")));
        return fields.map((f, i) => (i === 3 ? f : csvField(f))).join(",");
      })
      .join("\n") + "\n"
  );
}

function validateToken(t: LabToken): void {
  if (!t.token || /[\s,"]/.test(t.token)) throw new Error(`lab token for ${t.user}: a token must be non-empty without spaces, commas or quotes`);
  if (!t.user) throw new Error("lab token: user is required");
}

const TEMP_PREFIX = "meshplane-lab-";
const OWNER_FILE = ".lab-owner-pid";

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Removes the temp dirs of clusters whose test process was killed before stop() (their processes are ended by the watchdogs). */
async function sweepAbandonedDirs(): Promise<void> {
  const entries = await readdir(tmpdir()).catch(() => [] as string[]);
  await Promise.all(
    entries
      .filter((e) => e.startsWith(TEMP_PREFIX))
      .map(async (e) => {
        const dir = join(tmpdir(), e);
        const pid = Number.parseInt(await readFile(join(dir, OWNER_FILE), "utf8").catch(() => ""), 10);
        if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && !pidAlive(pid)) await rm(dir, { recursive: true, force: true });
      }),
  );
}

/** PEM blocks of a certificate bundle. */
function pemCertificates(bundle: string): string[] {
  return bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/g) ?? [];
}

function yamlString(s: string): string {
  return JSON.stringify(s); // a JSON string is a valid double-quoted YAML scalar
}

interface Crd {
  metadata: { name: string };
  spec: { group: string; names: { plural: string }; versions: { name: string; served: boolean }[] };
}

/**
 * Starts etcd and kube-apiserver on free 127.0.0.1 ports, waits for /readyz, installs the Istio, SMI
 * and Gateway API CRDs and waits until they are Established and served.
 */
export async function startCluster(options: StartClusterOptions): Promise<LabCluster> {
  const bins = await ensureLabBinaries();
  const versions = labVersions();
  const name = options.name;
  const safeName =
    name
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, "-")
      .replace(/^-+|-+$/g, "") || "lab";
  const ownDir = options.dataDir === undefined;
  if (ownDir) await sweepAbandonedDirs();
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), TEMP_PREFIX + `${safeName}-`)));
  if (ownDir) await writeFile(join(dataDir, OWNER_FILE), `${process.pid}\n`);
  const timeoutMs = options.startTimeoutMs ?? 180_000;
  const deadline = Date.now() + timeoutMs;
  const pki = join(dataDir, "pki");
  await mkdir(pki, { recursive: true });
  const logs = { etcd: join(dataDir, "etcd.log"), apiserver: join(dataDir, "kube-apiserver.log") };

  let etcd: ChildProcess | undefined;
  let apiserver: ChildProcess | undefined;
  let agent: https.Agent | undefined;
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    agent?.destroy();
    await stopProcess(apiserver);
    await stopProcess(etcd);
    if (ownDir) await rm(dataDir, { recursive: true, force: true });
  };

  try {
    // -- tokens and the service-account signing key (kept across restarts of a given dataDir)
    const tokensPath = join(pki, "tokens.csv");
    const adminPath = join(pki, "admin-token");
    const adminToken = existsSync(adminPath) ? (await readFile(adminPath, "utf8")).trim() : randomBytes(24).toString("hex");
    await writeFile(adminPath, adminToken + "\n", { mode: 0o600 });
    const tokens: LabToken[] = [{ token: adminToken, user: "lab-admin", groups: ["system:masters"] }, ...(options.tokens ?? [])];
    tokens.forEach(validateToken);
    if (new Set(tokens.map((t) => t.token)).size !== tokens.length) throw new Error("lab tokens must be unique");
    await writeFile(tokensPath, tokenFile(tokens), { mode: 0o600 });

    const saKey = join(pki, "sa.key");
    const saPub = join(pki, "sa.pub");
    if (!existsSync(saKey) || !existsSync(saPub)) {
      const { privateKey, publicKey } = generateKeyPairSync("rsa", {
        modulusLength: 2048,
        privateKeyEncoding: { type: "pkcs8", format: "pem" },
        publicKeyEncoding: { type: "spki", format: "pem" },
      });
      await writeFile(saKey, privateKey, { mode: 0o600 });
      await writeFile(saPub, publicKey);
    }

    // -- etcd (a port taken between freePort() and bind makes it exit: retry with new ports)
    let etcdUrl = "";
    for (let attempt = 1; ; attempt++) {
      const [clientPort, peerPort] = [await freePort(), await freePort()];
      etcdUrl = `http://127.0.0.1:${clientPort}`;
      const peerUrl = `http://127.0.0.1:${peerPort}`;
      etcd = startProcess(
        bins.etcd,
        [
          `--name=${safeName}`,
          `--data-dir=${join(dataDir, "etcd")}`,
          `--listen-client-urls=${etcdUrl}`,
          `--advertise-client-urls=${etcdUrl}`,
          `--listen-peer-urls=${peerUrl}`,
          `--initial-advertise-peer-urls=${peerUrl}`,
          `--initial-cluster=${safeName}=${peerUrl}`,
          "--initial-cluster-state=new",
          // a restart on a kept dataDir has a new peer URL: let etcd take it
          "--force-new-cluster=" + String(existsSync(join(dataDir, "etcd", "member"))),
          "--unsafe-no-fsync", // a test cluster: speed over durability
          "--logger=zap",
          "--log-level=warn",
        ],
        logs.etcd,
      );
      try {
        await waitFor("etcd", etcd, logs.etcd, deadline, () => httpGetOk(`${etcdUrl}/health`));
        break;
      } catch (e) {
        if (attempt < 3 && !isRunning(etcd) && /address already in use/.test(tail(logs.etcd))) continue;
        throw e;
      }
    }

    // -- kube-apiserver
    let url = "";
    let caCertPem = "";
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      url = `https://127.0.0.1:${port}`;
      apiserver = startProcess(
        bins.kubeApiserver,
        [
          `--etcd-servers=${etcdUrl}`,
          "--bind-address=127.0.0.1",
          "--advertise-address=127.0.0.1",
          `--secure-port=${port}`,
          // serving certificate: self-signed by kube-apiserver (CA + leaf for 127.0.0.1) into cert-dir
          `--cert-dir=${pki}`,
          `--token-auth-file=${tokensPath}`,
          "--authorization-mode=RBAC",
          "--anonymous-auth=false",
          `--service-account-key-file=${saPub}`,
          `--service-account-signing-key-file=${saKey}`,
          "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
          "--api-audiences=https://kubernetes.default.svc.cluster.local",
          "--service-cluster-ip-range=10.96.0.0/16",
          // no controllers run: nothing would create the service accounts' tokens or the endpoints
          "--disable-admission-plugins=ServiceAccount",
          "--endpoint-reconciler-type=none",
          "--allow-privileged=true",
          "--profiling=false",
          "--enable-priority-and-fairness=false",
          "--v=0",
          ...(options.apiserverArgs ?? []),
        ],
        logs.apiserver,
      );
      // the serving cert (leaf + self-signed CA) appears a moment after start
      const certPath = join(pki, "apiserver.crt");
      const readCa = async (): Promise<string | undefined> => {
        if (!existsSync(certPath)) return undefined;
        return pemCertificates(await readFile(certPath, "utf8")).find((c) => new X509Certificate(c).ca);
      };
      try {
        await waitFor("kube-apiserver", apiserver, logs.apiserver, deadline, async () => (await readCa()) !== undefined);
      } catch (e) {
        if (attempt < 3 && !isRunning(apiserver) && /address already in use/.test(tail(logs.apiserver))) continue;
        throw e;
      }
      caCertPem = (await readCa()) ?? "";
      if (!caCertPem) throw new Error(`no CA certificate in ${certPath}`);
      agent = new https.Agent({ ca: caCertPem, keepAlive: true, maxSockets: 16 });
      const probe = agent;
      try {
        await waitFor("kube-apiserver", apiserver, logs.apiserver, deadline, async () => {
          const r = await doRequest(probe, url, "GET", "/readyz", undefined, adminToken);
          return r.status === 200;
        });
        break;
      } catch (e) {
        agent.destroy();
        if (attempt < 3 && !isRunning(apiserver) && /address already in use/.test(tail(logs.apiserver))) continue;
        throw e;
      }
    }

    const httpAgent = agent;
    if (!httpAgent) throw new Error("unreachable");
    const request = <T = KubeObject>(method: string, path: string, body?: unknown, token?: string, opts?: { contentType?: string }) =>
      doRequest<T>(httpAgent, url, method, path, body, token ?? adminToken, opts?.contentType);

    // -- CRDs
    const crds: object[] = [];
    const crdSets = { istio: true, smi: true, gatewayApi: true, ...options.crds };
    if (crdSets.istio) crds.push(...(JSON.parse(await readFile(bins.istioCrds, "utf8")) as object[]));
    if (crdSets.smi) crds.push(...(JSON.parse(await readFile(bins.smiCrds, "utf8")) as object[]));
    if (crdSets.gatewayApi) crds.push(...(JSON.parse(await readFile(bins.gatewayApiCrds, "utf8")) as object[]));
    crds.push(...(options.extraCrds ?? []));
    await installCrds(request, crds as Crd[], deadline);

    const kubeconfig = (token: string = adminToken): string => {
      const ctx = safeName;
      return [
        "apiVersion: v1",
        "kind: Config",
        "clusters:",
        `- name: ${yamlString(ctx)}`,
        "  cluster:",
        `    server: ${yamlString(url)}`,
        `    certificate-authority-data: ${yamlString(Buffer.from(caCertPem).toString("base64"))}`,
        "users:",
        `- name: ${yamlString(ctx)}`,
        "  user:",
        `    token: ${yamlString(token)}`,
        "contexts:",
        `- name: ${yamlString(ctx)}`,
        "  context:",
        `    cluster: ${yamlString(ctx)}`,
        `    user: ${yamlString(ctx)}`,
        `current-context: ${yamlString(ctx)}`,
        "preferences: {}",
        "",
      ].join("\n");
    };
    let kubeconfigs = 0;
    const writeKubeconfig = async (token?: string, path?: string): Promise<string> => {
      const file = path ?? join(dataDir, `kubeconfig-${++kubeconfigs}.yaml`);
      await writeFile(file, kubeconfig(token), { mode: 0o600 });
      return file;
    };

    return { name, url, adminToken, caCertPem, etcdUrl, dataDir, versions, logs, kubeconfig, writeKubeconfig, request, stop };
  } catch (e) {
    const keep = ownDir ? "" : ` (logs in ${dataDir})`;
    await stop();
    if (e instanceof Error) e.message = `lab cluster ${name}: ${e.message}${keep}`;
    throw e;
  }
}

type RequestFn = <T = KubeObject>(method: string, path: string, body?: unknown, token?: string) => Promise<LabResponse<T>>;

async function installCrds(request: RequestFn, crds: Crd[], deadline: number): Promise<void> {
  const base = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
  await Promise.all(
    crds.map(async (crd) => {
      const r = await request("POST", base, crd);
      if (r.status === 409) {
        // already there (a reused dataDir): replace it with this version
        const cur = await request("GET", `${base}/${crd.metadata.name}`);
        const put = await request("PUT", `${base}/${crd.metadata.name}`, {
          ...crd,
          metadata: { ...crd.metadata, resourceVersion: cur.body?.metadata?.resourceVersion },
        });
        if (!put.ok) throw new Error(`updating CRD ${crd.metadata.name}: ${put.status} ${JSON.stringify(put.body)}`);
      } else if (!r.ok) {
        throw new Error(`creating CRD ${crd.metadata.name}: ${r.status} ${JSON.stringify(r.body)}`);
      }
    }),
  );
  // Established, then listed in discovery for every served version (so the first write succeeds)
  const pending = new Set(crds.map((c) => c.metadata.name));
  while (pending.size > 0) {
    for (const crd of crds) {
      if (!pending.has(crd.metadata.name)) continue;
      const r = await request<{ status?: { conditions?: { type: string; status: string }[] } }>("GET", `${base}/${crd.metadata.name}`);
      const established = (r.body.status?.conditions ?? []).some((c) => c.type === "Established" && c.status === "True");
      if (!established) continue;
      let served = true;
      for (const version of crd.spec.versions.filter((v) => v.served)) {
        const d = await request<{ resources?: { name: string }[] }>("GET", `/apis/${crd.spec.group}/${version.name}`);
        if (!d.ok || !(d.body.resources ?? []).some((res) => res.name === crd.spec.names.plural)) served = false;
      }
      if (served) pending.delete(crd.metadata.name);
    }
    if (pending.size === 0) break;
    if (Date.now() > deadline) throw new Error(`CRDs not established in time: ${[...pending].join(", ")}`);
    await sleep(200);
  }
}

function doRequest<T>(
  agent: https.Agent,
  baseUrl: string,
  method: string,
  path: string,
  body: unknown,
  token: string,
  contentType?: string,
): Promise<LabResponse<T>> {
  const upper = method.toUpperCase();
  let payload: Buffer | undefined;
  let type = contentType;
  if (body !== undefined) {
    if (typeof body === "string" || Buffer.isBuffer(body)) {
      payload = Buffer.from(body);
      type ??= "application/json";
    } else {
      payload = Buffer.from(JSON.stringify(body));
      type ??= upper === "PATCH" ? "application/merge-patch+json" : "application/json";
    }
  }
  const headers: Record<string, string | number> = { Accept: "application/json", Authorization: `Bearer ${token}` };
  if (payload) {
    headers["Content-Type"] = type ?? "application/json";
    headers["Content-Length"] = payload.length;
  }
  return new Promise((resolve, reject) => {
    const req = https.request(new URL(path, baseUrl), { method: upper, agent, headers, timeout: 60_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("error", reject);
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let parsed: unknown = text;
        if ((res.headers["content-type"] ?? "").includes("json") && text) {
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = text;
          }
        }
        const status = res.statusCode ?? 0;
        resolve({ status, ok: status >= 200 && status < 300, body: parsed as T, headers: res.headers });
      });
    });
    req.on("timeout", () => req.destroy(new Error(`${upper} ${path}: timed out`)));
    req.on("error", reject);
    if (payload) req.write(payload);
    req.end();
  });
}
