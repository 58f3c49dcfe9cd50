/**
 * Support for features.test.ts: judging a tenant (a golden case or a variant of one) with Istio's own
 * config generation, and reading the result the way Envoy acts on it — which route a request takes,
 * and whether a sidecar's inbound RBAC lets a caller in. The readers understand exactly the Envoy
 * fields Istio emits for our features and throw on anything else, so an unexpected shape fails a
 * test instead of silently matching nothing.
 */
import { parse, parseAllDocuments, stringify } from "yaml";
import { translate, type TranslateInput, type TranslateOutput } from "../../packages/core/src/translate/index";
import { readCase } from "../golden/cases";
import { buildInput, type TenantDescription } from "../golden/tenant";
import { findAll, inboundChains } from "./envoy";
import { type Envoy, judgeXds, type ProxyConfig, type XdsInput, type XdsOutput } from "./judge";
import { clusterWorld } from "./world";

export interface WorldOptions {
  /** YAML lines appended to every cluster's mesh config. */
  meshConfigExtra?: string;
  /** Extra labels for the Pods whose name starts with the key (pods are named `<workload>-<ip>`). */
  podLabels?: Record<string, Record<string, string>>;
}

export interface Judged {
  input: TranslateInput;
  output: TranslateOutput;
  /** Per cluster with an Istio mesh: the judge's input and its answer. */
  clusters: Map<string, { world: XdsInput; xds: XdsOutput }>;
}

/** A golden case's input.yaml as a tenant description, to judge as is or to vary. */
export function goldenDescription(name: string): TenantDescription {
  const text = readCase(name, "input.yaml");
  if (text === undefined) throw new Error(`no golden case ${name}`);
  return parse(text) as TenantDescription;
}

function relabelPods(kubernetes: string, podLabels: Record<string, Record<string, string>>): string {
  const docs = parseAllDocuments(kubernetes).map((d) => d.toJS() as { kind: string; metadata: { name: string; labels?: Record<string, string> } });
  for (const doc of docs) {
    const extra = Object.entries(podLabels).find(([prefix]) => doc.kind === "Pod" && doc.metadata.name.startsWith(prefix))?.[1];
    if (extra !== undefined) doc.metadata.labels = { ...doc.metadata.labels, ...extra };
  }
  return docs.map((d) => stringify(d, { lineWidth: 0, version: "1.1" })).join("---\n");
}

/**
 * Translates `description` and judges every Istio cluster of it. Throws when istiod's validation
 * rejects one of our objects: Envoy configuration computed without it would test nothing.
 */
export function judgeTenant(description: TenantDescription, options: WorldOptions = {}): Judged {
  const input = buildInput(description);
  const output = translate(input);
  const clusters = new Map<string, { world: XdsInput; xds: XdsOutput }>();
  for (const cluster of input.clusters) {
    const world = clusterWorld(input, output, cluster, options.meshConfigExtra);
    if (world === undefined) continue;
    if (options.podLabels !== undefined) world.kubernetes = relabelPods(world.kubernetes, options.podLabels);
    const xds = judgeXds(world);
    const rejected = xds.validation.filter((v) => v.error !== undefined);
    if (rejected.length > 0) throw new Error(`${cluster}: istiod rejects ${JSON.stringify(rejected)}`);
    clusters.set(cluster, { world, xds });
  }
  return { input, output, clusters };
}

const judgedGolden = new Map<string, Judged>();

/** `judgeTenant` of golden case `name`, judged once per test file. */
export function judgeGolden(name: string): Judged {
  let judged = judgedGolden.get(name);
  if (judged === undefined) {
    judged = judgeTenant(goldenDescription(name));
    judgedGolden.set(name, judged);
  }
  return judged;
}

const judgedVariants = new Map<string, Judged>();

/**
 * `judgeTenant` of golden case `name` changed by `vary` (on a copy), judged once per test file
 * and `label`.
 */
export function judgeVariant(name: string, label: string, vary: (description: TenantDescription) => void): Judged {
  const key = `${name}#${label}`;
  let judged = judgedVariants.get(key);
  if (judged === undefined) {
    const description = structuredClone(goldenDescription(name));
    vary(description);
    judged = judgeTenant(description);
    judgedVariants.set(key, judged);
  }
  return judged;
}

/** The Envoy configuration of proxy `name` (`<namespace>/<workload>`) in `cluster`; throws when there is none. */
export function proxyConfig(judged: Judged, name: string, cluster = "cluster-1"): ProxyConfig {
  const config = judged.clusters.get(cluster)?.xds.proxies[name];
  if (config === undefined) throw new Error(`no proxy ${name} in ${cluster}`);
  return config;
}

/** Names of the sidecar proxies of `cluster`. */
export function sidecars(judged: Judged, cluster = "cluster-1"): string[] {
  return (judged.clusters.get(cluster)?.world.proxies ?? []).filter((p) => p.type === "sidecar").map((p) => p.name);
}

/** The pod address of proxy `name`. */
export function proxyIp(judged: Judged, name: string, cluster = "cluster-1"): string {
  const proxy = judged.clusters.get(cluster)?.world.proxies.find((p) => p.name === name);
  if (proxy === undefined) throw new Error(`no proxy ${name} in ${cluster}`);
  return proxy.ip;
}

// ---- Envoy's matching, for the matchers Istio emits ----

/** Envoy's safe_regex (RE2) matches the whole value. */
function fullMatch(regex: string, value: string): boolean {
  return new RegExp(`^(?:${regex})$`).test(value);
}

function stringMatches(m: Envoy, value: string): boolean {
  const fold = (s: unknown): string => (m.ignoreCase === true ? String(s).toLowerCase() : String(s));
  if (m.exact !== undefined) return fold(value) === fold(m.exact);
  if (m.prefix !== undefined) return fold(value).startsWith(fold(m.prefix));
  if (m.suffix !== undefined) return fold(value).endsWith(fold(m.suffix));
  if (m.contains !== undefined) return fold(value).includes(fold(m.contains));
  if (m.safeRegex !== undefined) return fullMatch((m.safeRegex as Envoy).regex as string, value);
  throw new Error(`string matcher not understood: ${JSON.stringify(m)}`);
}

/** An HTTP request as the sidecar sees it; header names are case-insensitive. */
export interface HttpRequest {
  method: string;
  /** Without the query string. */
  path: string;
  query?: Record<string, string>;
  headers?: Record<string, string>;
}

function headerValue(req: HttpRequest, name: string): string | undefined {
  if (name === ":method") return req.method;
  if (name === ":path") return req.path;
  return Object.entries(req.headers ?? {}).find(([k]) => k.toLowerCase() === name)?.[1];
}

/** Envoy's HeaderMatcher (HeaderUtility::matchHeaders). */
function headerMatches(h: Envoy, req: HttpRequest): boolean {
  const invert = h.invertMatch === true;
  let value = headerValue(req, h.name as string);
  if (value === undefined) {
    if (h.treatMissingHeaderAsEmpty !== true) return "presentMatch" in h ? h.presentMatch === invert : false;
    value = "";
  }
  let matched: boolean;
  if ("presentMatch" in h) matched = h.presentMatch === true;
  else if (h.stringMatch !== undefined) matched = stringMatches(h.stringMatch as Envoy, value);
  else if (h.exactMatch !== undefined) matched = value === h.exactMatch;
  else throw new Error(`header matcher not understood: ${JSON.stringify(h)}`);
  return matched !== invert;
}

const ROUTE_MATCH_FIELDS = new Set(["prefix", "path", "safeRegex", "pathSeparatedPrefix", "caseSensitive", "headers", "queryParameters"]);

function routeMatches(match: Envoy, req: HttpRequest): boolean {
  const unknown = Object.keys(match).filter((k) => !ROUTE_MATCH_FIELDS.has(k));
  if (unknown.length > 0) throw new Error(`route match fields not understood: ${unknown.join(", ")}`);
  const fold = (s: string): string => (match.caseSensitive === false ? s.toLowerCase() : s);
  let pathOk: boolean;
  if (typeof match.prefix === "string") pathOk = fold(req.path).startsWith(fold(match.prefix));
  else if (typeof match.path === "string") pathOk = fold(req.path) === fold(match.path);
  else if (match.safeRegex !== undefined) pathOk = fullMatch((match.safeRegex as Envoy).regex as string, req.path);
  else if (typeof match.pathSeparatedPrefix === "string") {
    const p = fold(match.pathSeparatedPrefix);
    pathOk = fold(req.path) === p || fold(req.path).startsWith(`${p}/`);
  } else throw new Error(`route match without a path specifier: ${JSON.stringify(match)}`);
  const headersOk = ((match.headers as Envoy[] | undefined) ?? []).every((h) => headerMatches(h, req));
  const queryOk = ((match.queryParameters as Envoy[] | undefined) ?? []).every((q) => {
    const value = req.query?.[q.name as string];
    if (value === undefined) return false;
    if (q.presentMatch === true) return true;
    return stringMatches(q.stringMatch as Envoy, value);
  });
  return pathOk && headersOk && queryOk;
}

/** The route of `virtualHost` Envoy picks for `req`: the first whose match holds. */
export function selectRoute(virtualHost: Envoy | undefined, req: HttpRequest): Envoy | undefined {
  return ((virtualHost?.routes as Envoy[] | undefined) ?? []).find((r) => routeMatches(r.match as Envoy, req));
}

// ---- Envoy's RBAC, for the permissions and principals Istio emits ----

/** A connection (and for HTTP, a request) arriving at a sidecar's inbound port. */
export interface InboundCall {
  /** The workload port (a Service's targetPort). */
  port: number;
  /** The caller's SPIFFE ID from its mTLS certificate; undefined for plaintext. */
  principal?: string;
  method?: string;
  path?: string;
}

function permissionMatches(p: Envoy, call: InboundCall): boolean {
  if (p.any === true) return true;
  if (p.andRules !== undefined) return ((p.andRules as Envoy).rules as Envoy[]).every((r) => permissionMatches(r, call));
  if (p.orRules !== undefined) return ((p.orRules as Envoy).rules as Envoy[]).some((r) => permissionMatches(r, call));
  if (p.notRule !== undefined) return !permissionMatches(p.notRule as Envoy, call);
  if (p.destinationPort !== undefined) return p.destinationPort === call.port;
  if (p.urlPath !== undefined) return call.path !== undefined && stringMatches((p.urlPath as Envoy).path as Envoy, call.path);
  if (p.header !== undefined) return call.method !== undefined && headerMatches(p.header as Envoy, { method: call.method, path: call.path ?? "/" });
  throw new Error(`RBAC permission not understood: ${JSON.stringify(p)}`);
}

function principalMatches(p: Envoy, call: InboundCall): boolean {
  if (p.any === true) return true;
  if (p.andIds !== undefined) return ((p.andIds as Envoy).ids as Envoy[]).every((i) => principalMatches(i, call));
  if (p.orIds !== undefined) return ((p.orIds as Envoy).ids as Envoy[]).some((i) => principalMatches(i, call));
  if (p.notId !== undefined) return !principalMatches(p.notId as Envoy, call);
  if (p.authenticated !== undefined) {
    const name = (p.authenticated as Envoy).principalName as Envoy | undefined;
    return call.principal !== undefined && (name === undefined || stringMatches(name, call.principal));
  }
  // A waypoint reads the caller's identity from the filter state its HBONE termination sets.
  if ((p.filterState as Envoy | undefined)?.key === "io.istio.peer_principal") {
    return call.principal !== undefined && stringMatches((p.filterState as Envoy).stringMatch as Envoy, call.principal);
  }
  throw new Error(`RBAC principal not understood: ${JSON.stringify(p)}`);
}

/** One RBAC filter's verdict; a filter with only shadow rules enforces nothing. */
function rbacPasses(config: Envoy, call: InboundCall): boolean {
  const rules = config.rules as Envoy | undefined;
  if (rules === undefined) return true;
  const policies = Object.values((rules.policies as Record<string, Envoy> | undefined) ?? {});
  const matched = policies.some(
    (p) => (p.permissions as Envoy[]).some((x) => permissionMatches(x, call)) && (p.principals as Envoy[]).some((x) => principalMatches(x, call)),
  );
  const action = (rules.action as string | undefined) ?? "ALLOW";
  if (action === "ALLOW") return matched;
  if (action === "DENY") return !matched;
  throw new Error(`RBAC action not understood: ${action}`);
}

/**
 * Whether every network and HTTP RBAC filter anywhere in `value` (a listener or filter chain) lets
 * `call` through; for a waypoint's chain, `port` is the port the waypoint sees.
 */
export function rbacAllows(value: unknown, call: InboundCall): boolean {
  const filters = findAll(value, (o) => o.name === "envoy.filters.network.rbac" || o.name === "envoy.filters.http.rbac");
  return filters.every((f) => rbacPasses(f.typedConfig as Envoy, call));
}

/**
 * Whether the sidecar lets `call` in: the RBAC filters of the inbound filter chain for its port
 * (the mTLS chain when the caller has a principal, else the plaintext one) must all pass it.
 * Throws when the sidecar has no such chain.
 */
export function inboundAllows(config: ProxyConfig, call: InboundCall): boolean {
  const chain = inboundChains(config, call.port).find((fc) => (fc.transportSocket !== undefined) === (call.principal !== undefined));
  if (chain === undefined) throw new Error(`no inbound ${call.principal === undefined ? "plaintext" : "mTLS"} filter chain for port ${call.port}`);
  return rbacAllows(chain, call);
}

// ---- Outbound clusters ----

/** Every outbound cluster of `host` (the service's and its subsets') in `config`. */
export function clustersOf(config: ProxyConfig, host: string, port: number): Envoy[] {
  return config.clusters.filter((c) => typeof c.name === "string" && c.name.startsWith(`outbound|${port}|`) && c.name.endsWith(`|${host}`));
}

/** A cluster's connection pool settings, as Istio writes them (circuit breakers, protocol options). */
export function pool(c: Envoy): Envoy {
  const thresholds = ((c.circuitBreakers as Envoy | undefined)?.thresholds as Envoy[] | undefined)?.[0];
  return {
    maxConnections: thresholds?.maxConnections,
    maxPendingRequests: thresholds?.maxPendingRequests,
    connectTimeout: c.connectTimeout,
    maxRequestsPerConnection: findAll(c.typedExtensionProtocolOptions, (o) => o.maxRequestsPerConnection !== undefined)[0]?.maxRequestsPerConnection,
  };
}
