/**
 * Follows one cross-cluster call through the Envoy configuration Istio computes for every hop, as
 * the request would travel: the client sidecar's route and cluster for the federated host (mTLS
 * origination, SNI, pinned server identities, endpoints = the remote east-west gateway), the remote
 * gateway's SNI filter chain and cluster (endpoints = the destination's pods), and the destination
 * sidecar's inbound TLS validation (does it accept the caller's trust domain?). Each hop that does
 * not work is a problem in plain words; an empty list means the call works.
 */
import type { Mesh } from "@meshplane/core";
import { clusterNamed, endpointAddresses, findAll, listenerOnPort, routeTargets, upstreamSans, upstreamSni, virtualHostFor } from "./envoy";
import type { Envoy, ProxyConfig, XdsOutput } from "./judge";

export interface JudgedCluster {
  cluster: string;
  mesh: Mesh;
  xds: XdsOutput;
  /** Proxy name → its IP and labels, from the judge's input. */
  proxies: { name: string; ip: string; labels: Record<string, string>; type: string }[];
}

export interface Call {
  from: { cluster: string; proxy: string; trustDomain: string };
  host: string;
  port: number;
}

export interface CallTrace {
  problems: string[];
  /** `address:port` of the gateways the client connects to. */
  gateways: string[];
  sni: string[];
  sans: string[];
  /** `ip:port` of the pods the gateway forwards to. */
  pods: string[];
}

function tcpProxyClusters(chain: Envoy): string[] {
  return findAll(chain, (o) => typeof o.cluster === "string" && typeof o.statPrefix === "string").map((o) => o.cluster as string);
}

/** The SPIFFE trust-domain prefixes a sidecar's inbound mTLS accepts on `port`; undefined when it checks none. */
export function inboundTrustDomains(config: ProxyConfig, port: number): string[] | undefined {
  const inbound = config.listeners.find((l) => l.name === "virtualInbound");
  const chains = ((inbound?.filterChains as Envoy[] | undefined) ?? []).filter(
    (fc) => (fc.filterChainMatch as Envoy | undefined)?.destinationPort === port && fc.transportSocket !== undefined,
  );
  if (chains.length === 0) return [];
  const prefixes = findAll(chains, (o) => Array.isArray(o.matchSubjectAltNames)).flatMap((o) =>
    (o.matchSubjectAltNames as Envoy[]).map((m) => m.prefix as string),
  );
  return prefixes.length === 0 ? undefined : [...new Set(prefixes)].sort();
}

function gatewayHop(
  sni: string,
  address: string,
  clusters: readonly JudgedCluster[],
  trace: CallTrace,
): { target: JudgedCluster; podTargets: string[] } | undefined {
  const [ip, port] = address.split(":") as [string, string];
  const target = clusters.find((c) => (c.mesh.spec.istio?.gateways ?? []).some((g) => g.addresses.some((a) => a.ip === ip || a.hostname === ip)));
  const gateway = target?.mesh.spec.istio?.gateways.find((g) => g.addresses.some((a) => a.ip === ip || a.hostname === ip) && g.externalPort === Number(port));
  if (target === undefined || gateway === undefined) {
    trace.problems.push(`no east-west gateway of any cluster listens at ${address}`);
    return undefined;
  }
  const proxy = target.proxies.find((p) => p.type === "router" && Object.entries(gateway.selector).every(([k, v]) => p.labels[k] === v));
  const config = proxy === undefined ? undefined : target.xds.proxies[proxy.name];
  if (config === undefined) {
    trace.problems.push(`${target.cluster}: no proxy for gateway ${gateway.namespace}/${gateway.name}`);
    return undefined;
  }
  const listener = listenerOnPort(config, gateway.containerPort);
  const chain = ((listener?.filterChains as Envoy[] | undefined) ?? []).find((fc) =>
    ((fc.filterChainMatch as Envoy | undefined)?.serverNames as string[] | undefined)?.includes(sni),
  );
  if (chain === undefined) {
    trace.problems.push(`${target.cluster}: gateway ${gateway.name} has no filter chain for SNI ${sni} on port ${gateway.containerPort}`);
    return undefined;
  }
  const podTargets = tcpProxyClusters(chain).flatMap((c) => endpointAddresses(config, c));
  if (podTargets.length === 0) trace.problems.push(`${target.cluster}: gateway ${gateway.name} routes SNI ${sni} to a cluster with no endpoints`);
  return { target, podTargets };
}

function serverHop(target: JudgedCluster, pod: string, callerTrustDomain: string, trace: CallTrace): void {
  const [ip, port] = pod.split(":") as [string, string];
  const proxy = target.proxies.find((p) => p.ip === ip);
  const config = proxy === undefined ? undefined : target.xds.proxies[proxy.name];
  if (config === undefined) {
    trace.problems.push(`${target.cluster}: no sidecar at ${ip}`);
    return;
  }
  const accepted = inboundTrustDomains(config, Number(port));
  if (accepted !== undefined && accepted.length === 0) trace.problems.push(`${target.cluster}: ${proxy?.name} does not terminate mTLS on port ${port}`);
  else if (accepted !== undefined && !accepted.includes(`spiffe://${callerTrustDomain}/`)) {
    trace.problems.push(`${target.cluster}: ${proxy?.name} refuses callers of trust domain ${callerTrustDomain} (accepts ${accepted.join(", ")})`);
  }
}

/**
 * Clusters the client sends `host:port` to: an HTTP route's targets, or for a TCP port the cluster
 * of the listener's tcp_proxy (`outbound|<port>||<host>`).
 */
function clientTargets(client: ProxyConfig, call: Call): string[] {
  const vh = virtualHostFor(client, `${call.host}:${call.port}`, String(call.port)) ?? virtualHostFor(client, call.host, String(call.port));
  const routed = ((vh?.routes as Envoy[] | undefined) ?? []).flatMap(routeTargets).map((t) => t.cluster);
  if (routed.length > 0) return routed;
  const tcp = `outbound|${call.port}||${call.host}`;
  return findAll(client.listeners, (o) => o.cluster === tcp && typeof o.statPrefix === "string").length > 0 ? [tcp] : [];
}

/** Traces `call` through `clusters` (every cluster of the tenant, judged). */
export function traceCall(call: Call, clusters: readonly JudgedCluster[]): CallTrace {
  const trace: CallTrace = { problems: [], gateways: [], sni: [], sans: [], pods: [] };
  const source = clusters.find((c) => c.cluster === call.from.cluster);
  const client = source?.xds.proxies[call.from.proxy];
  if (client === undefined) {
    trace.problems.push(`no client proxy ${call.from.proxy} in ${call.from.cluster}`);
    return trace;
  }
  const targets = clientTargets(client, call);
  if (targets.length === 0) trace.problems.push(`client has no route for ${call.host}:${call.port}`);
  for (const name of new Set(targets)) {
    const cluster = clusterNamed(client, name);
    if (cluster === undefined) {
      trace.problems.push(`route points at missing cluster ${name}`);
      continue;
    }
    // A policy may send part of the traffic to the caller's own cluster (a local subset or service).
    if (name.split("|")[3]?.endsWith(".svc.cluster.local")) {
      const pods = endpointAddresses(client, name);
      if (pods.length === 0) trace.problems.push(`${name}: no endpoints`);
      for (const pod of pods) serverHop(source as JudgedCluster, pod, call.from.trustDomain, trace);
      continue;
    }
    const sni = upstreamSni(cluster);
    if (sni.length === 0) trace.problems.push(`${name}: client does not originate mTLS`);
    trace.sni.push(...sni);
    trace.sans.push(...upstreamSans(cluster));
    const gateways = endpointAddresses(client, name);
    if (gateways.length === 0) trace.problems.push(`${name}: no endpoints`);
    trace.gateways.push(...gateways);
    for (const address of gateways) {
      for (const s of sni) {
        const hop = gatewayHop(s, address, clusters, trace);
        if (hop === undefined) continue;
        trace.pods.push(...hop.podTargets);
        for (const pod of hop.podTargets) serverHop(hop.target, pod, call.from.trustDomain, trace);
      }
    }
  }
  for (const key of ["gateways", "sni", "sans", "pods"] as const) trace[key] = [...new Set(trace[key])].sort();
  trace.problems = [...new Set(trace.problems)];
  return trace;
}
