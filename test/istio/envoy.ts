/**
 * Reading the Envoy configuration the judge returns (proto3 JSON): find clusters, routes, filter
 * chains and endpoints the way a person reading `istioctl proxy-config` would.
 */
import type { Envoy, ProxyConfig } from "./judge";

type Json = unknown;

/** Every object anywhere inside `value` (depth first) for which `match` holds. */
export function findAll(value: Json, match: (o: Record<string, unknown>) => boolean): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const visit = (v: Json): void => {
    if (Array.isArray(v)) for (const item of v) visit(item);
    else if (v !== null && typeof v === "object") {
      const o = v as Record<string, unknown>;
      if (match(o)) out.push(o);
      for (const child of Object.values(o)) visit(child);
    }
  };
  visit(value);
  return out;
}

export function clusterNamed(config: ProxyConfig, name: string): Envoy | undefined {
  return config.clusters.find((c) => c.name === name);
}

/** The `host:port` addresses of a cluster's endpoints, from EDS (or a static load assignment). */
export function endpointAddresses(config: ProxyConfig, cluster: string): string[] {
  const assignment = config.endpoints.find((e) => e.clusterName === cluster) ?? (clusterNamed(config, cluster)?.loadAssignment as Envoy | undefined);
  if (assignment === undefined) return [];
  return findAll(assignment, (o) => typeof o.socketAddress === "object")
    .map((o) => o.socketAddress as { address: string; portValue: number })
    .map((a) => `${a.address}:${a.portValue}`)
    .sort();
}

/** Every virtual host of every route configuration. */
export function virtualHosts(config: ProxyConfig): Envoy[] {
  return config.routes.flatMap((r) => (r.virtualHosts as Envoy[] | undefined) ?? []);
}

/** The virtual host serving `domain` (exact domain match, as Envoy lists them). */
export function virtualHostFor(config: ProxyConfig, domain: string, routeName?: string): Envoy | undefined {
  const routes = routeName === undefined ? config.routes : config.routes.filter((r) => r.name === routeName);
  return routes.flatMap((r) => (r.virtualHosts as Envoy[] | undefined) ?? []).find((vh) => (vh.domains as string[]).includes(domain));
}

/** Clusters a route sends traffic to: `route.cluster` or the weighted clusters, with weights. */
export function routeTargets(route: Envoy): { cluster: string; weight?: number }[] {
  const action = route.route as Envoy | undefined;
  if (action === undefined) return [];
  if (typeof action.cluster === "string") return [{ cluster: action.cluster }];
  const weighted = (action.weightedClusters as { clusters: { name: string; weight?: number }[] } | undefined)?.clusters ?? [];
  return weighted.map((c) => ({ cluster: c.name, weight: c.weight }));
}

/** Filter chains of the listener bound to `port`, for a gateway (router) proxy. */
export function listenerOnPort(config: ProxyConfig, port: number): Envoy | undefined {
  return config.listeners.find((l) => ((l.address as Envoy | undefined)?.socketAddress as Envoy | undefined)?.portValue === port);
}

/** The SNI of a cluster's upstream TLS (direct or through transport socket matches). */
export function upstreamSni(cluster: Envoy): string[] {
  return findAll(cluster, (o) => typeof o.sni === "string").map((o) => o.sni as string);
}

/** SAN matchers a cluster's upstream TLS applies to the server's certificate. */
export function upstreamSans(cluster: Envoy): string[] {
  return findAll(cluster, (o) => Array.isArray(o.matchSubjectAltNames))
    .flatMap((o) => o.matchSubjectAltNames as Envoy[])
    .map((m) => String(m.exact ?? m.prefix ?? JSON.stringify(m)));
}

/** The virtual host named `name` (Istio names them `<host>:<port>`) in route configuration `routeName`. */
export function virtualHostNamed(config: ProxyConfig, routeName: string, name: string): Envoy | undefined {
  const route = config.routes.find((r) => r.name === routeName);
  return ((route?.virtualHosts as Envoy[] | undefined) ?? []).find((vh) => vh.name === name);
}

/** A FractionalPercent (`{numerator, denominator}`, denominator HUNDRED when absent) as a percentage. */
export function fractionPercent(fraction: Envoy | undefined): number | undefined {
  if (fraction === undefined) return undefined;
  const scale = { HUNDRED: 1, TEN_THOUSAND: 100, MILLION: 10_000 }[(fraction.denominator as string | undefined) ?? "HUNDRED"];
  if (scale === undefined) throw new Error(`unknown FractionalPercent denominator ${String(fraction.denominator)}`);
  return ((fraction.numerator as number | undefined) ?? 0) / scale;
}

/** A sidecar's inbound filter chains (listener `virtualInbound`) for traffic to workload port `port`. */
export function inboundChains(config: ProxyConfig, port: number): Envoy[] {
  const inbound = config.listeners.find((l) => l.name === "virtualInbound");
  return ((inbound?.filterChains as Envoy[] | undefined) ?? []).filter((fc) => (fc.filterChainMatch as Envoy | undefined)?.destinationPort === port);
}

/** The HTTP filters, in order, of the HTTP connection manager(s) inside `value` (a listener or filter chain). */
export function httpFilters(value: unknown): Envoy[] {
  return findAll(value, (o) => Array.isArray(o.httpFilters)).flatMap((hcm) => hcm.httpFilters as Envoy[]);
}

/** `address:port` → EDS priority (0, the highest, when unset) of each endpoint of `cluster`. */
export function endpointPriorities(config: ProxyConfig, cluster: string): Record<string, number> {
  const assignment = config.endpoints.find((e) => e.clusterName === cluster);
  const out: Record<string, number> = {};
  for (const group of (assignment?.endpoints as Envoy[] | undefined) ?? []) {
    for (const o of findAll(group, (x) => typeof x.socketAddress === "object")) {
      const a = o.socketAddress as { address: string; portValue: number };
      out[`${a.address}:${a.portValue}`] = (group.priority as number | undefined) ?? 0;
    }
  }
  return out;
}
