/**
 * TrafficPolicy under Gateway API output, judged by Istio's own code
 * (docs/ambient.md#trafficpolicy-as-httproute): meshplane's translation of an ambient tenant with a
 * waypoint (gateway-api-tenant.ts, one policy per feature), given to istiod with the ambient data
 * plane on; each feature must be in the waypoint's Envoy configuration — its routes, route actions
 * and header mutations, and the DestinationRule's settings on its clusters. A sidecar caller gets the
 * same routes from the same HTTPRoute (sidecars call the service directly, past the waypoint).
 */
import { describe, expect, it } from "vitest";
import { translate } from "../../packages/core/src/translate/index";
import { buildInput } from "../golden/tenant";
import { ambientWorld } from "./ambient-world";
import { clusterNamed, findAll, fractionPercent, virtualHostNamed } from "./envoy";
import { GATEWAY_API_TENANT } from "./gateway-api-tenant";
import { type Envoy, judgeAmbient, judgeXds, type ProxyConfig } from "./judge";
import { clusterWorld, yamlDocs } from "./world";

const REVIEWS = "reviews.bookinfo.svc.cluster.local";
const DETAILS = "details.bookinfo.svc.cluster.local";

const input = buildInput(GATEWAY_API_TENANT);
const output = translate(input);
const objects = output.clusters["cluster-1"]?.objects ?? [];
const httpRoutes = objects.filter((o) => o.kind === "HTTPRoute");

/** istiod's answer for the ambient cluster: the waypoint's Envoy configuration. */
function judgeWaypoint(): ProxyConfig {
  const world = ambientWorld(input, output, "cluster-1");
  if (world === undefined) throw new Error("cluster-1 has no Istio mesh");
  const judged = judgeAmbient(world);
  const rejected = judged.validation.filter((v) => v.error !== undefined);
  if (rejected.length > 0) throw new Error(`istiod rejects ${JSON.stringify(rejected)}`);
  const config = judged.waypoints["bookinfo/waypoint"];
  if (config === undefined) throw new Error(`no waypoint: ${Object.keys(judged.waypoints).join(", ")}`);
  return config;
}

/**
 * istiod's answer for the sidecar caller frontend/web-v1. Istio's Gateway API controller reads
 * routes from the cluster (not from its config store), so the HTTPRoutes go with the Kubernetes
 * objects, as in the ambient run.
 */
function judgeSidecar(): ProxyConfig {
  const world = clusterWorld(input, output, "cluster-1");
  if (world === undefined) throw new Error("cluster-1 has no Istio mesh");
  world.kubernetes += `\n---\n${yamlDocs(httpRoutes)}`;
  const config = judgeXds(world).proxies["frontend/web-v1"];
  if (config === undefined) throw new Error("no proxy frontend/web-v1");
  return config;
}

const waypoint = judgeWaypoint();
const sidecar = judgeSidecar();

/** The waypoint's routes for calls to `host`:9080 (the route configuration inline in its chain for the service). */
function waypointRoutes(host: string): Envoy[] {
  const config = waypoint.routes.find((r) => r.name === `inbound-vip|9080|http|${host}`);
  return ((config?.virtualHosts as Envoy[] | undefined) ?? []).flatMap((vh) => vh.routes as Envoy[]);
}

/** The sidecar's outbound routes for `host`:9080. */
function sidecarRoutes(host: string): Envoy[] {
  return (virtualHostNamed(sidecar, "9080", `${host}:9080`)?.routes as Envoy[] | undefined) ?? [];
}

/** A cluster's service host: `inbound-vip|9080|http|<host>` on a waypoint, `outbound|9080||<host>` in a sidecar. */
const hostOf = (cluster: string): string => cluster.split("|").at(-1) as string;

type Named = { name: string; stringMatch?: Envoy; presentMatch?: boolean };
const byName = (a: Named, b: Named) => a.name.localeCompare(b.name);

/**
 * What a route does to a request, with names that differ between a waypoint and a sidecar (cluster
 * names) read as the service host, and unordered lists sorted: its match, the backends and weights,
 * timeout, retries, mirrors with their fraction, and header mutations.
 */
function effect(route: Envoy) {
  const match = route.match as Envoy;
  const action = (route.route ?? {}) as Envoy;
  const weighted = (action.weightedClusters as { clusters: { name: string; weight: number }[] } | undefined)?.clusters;
  const retry = action.retryPolicy as Envoy | undefined;
  return {
    path: match.path ?? (match.safeRegex as Envoy | undefined)?.regex ?? match.prefix,
    headers: [...((match.headers as Named[] | undefined) ?? [])].sort(byName),
    query: [...((match.queryParameters as Named[] | undefined) ?? [])].sort(byName),
    backends: weighted?.map((c) => ({ host: hostOf(c.name), weight: c.weight })) ?? [{ host: hostOf(String(action.cluster)), weight: 100 }],
    timeout: action.timeout,
    retries: { attempts: retry?.numRetries, codes: retry?.retriableStatusCodes, perTry: retry?.perTryTimeout },
    mirrors: ((action.requestMirrorPolicies as Envoy[] | undefined) ?? []).map((m) => ({
      host: hostOf(String(m.cluster)),
      percent: fractionPercent((m.runtimeFraction as Envoy | undefined)?.defaultValue as Envoy | undefined),
    })),
    requestAdd: route.requestHeadersToAdd ?? [],
    requestRemove: route.requestHeadersToRemove ?? [],
    responseAdd: route.responseHeadersToAdd ?? [],
    responseRemove: route.responseHeadersToRemove ?? [],
  };
}

/** The one route of `routes` whose match satisfies `which`. */
function routeWhere(routes: readonly Envoy[], which: (match: Envoy) => boolean): ReturnType<typeof effect> {
  const found = routes.filter((r) => which(r.match as Envoy));
  if (found.length !== 1) throw new Error(`${found.length} routes match: ${JSON.stringify(routes.map((r) => r.match))}`);
  return effect(found[0] as Envoy);
}

/** The Envoy clusters a route sends to and mirrors to. */
function clustersOf(route: Envoy): string[] {
  const action = route.route as Envoy;
  const weighted = (action.weightedClusters as { clusters: { name: string }[] } | undefined)?.clusters.map((c) => c.name) ?? [String(action.cluster)];
  return [...weighted, ...((action.requestMirrorPolicies as Envoy[] | undefined) ?? []).map((m) => String(m.cluster))];
}

const regex = (value: string) => ({ safeRegex: { regex: value } });
const header = (name: string, stringMatch: object) => ({ name, stringMatch });
const noHeaders = (m: Envoy) => m.headers === undefined && m.queryParameters === undefined;

describe("Gateway API output: every policy accepted, every object taken by istiod", () => {
  it("each policy is ACCEPTED and the services with policy routes get one HTTPRoute each", () => {
    const states = Object.fromEntries(Object.entries(output.statuses).map(([k, s]) => [k, s.state]));
    expect(Object.values(states).every((s) => s === "ACCEPTED")).toBe(true);
    expect(Object.keys(states)).toHaveLength(GATEWAY_API_TENANT.trafficPolicies?.length ?? 0);
    expect(httpRoutes.map((r) => r.metadata.name).sort()).toEqual(["details", "reviews"]);
  });
});

describe("matches, judged on the waypoint: one route per match, in Istio's precedence", () => {
  const routes = waypointRoutes(REVIEWS);

  it.each<[string, (m: Envoy) => boolean, object]>([
    ["an exact path is an exact path match", (m) => m.path === "/reviews/0", { timeout: "3s" }],
    ["a prefix is a regular expression the path starts with", (m) => (m.safeRegex as Envoy | undefined)?.regex === "/api/v1.*", { timeout: "4s" }],
    ["a regex is the path's regular expression", (m) => (m.safeRegex as Envoy | undefined)?.regex === "/reviews/[0-9]+", { timeout: "5s" }],
    [
      "headers (exact, regex, presence) are header matches, to the trafficShift's backend",
      (m) => Array.isArray(m.headers) && (m.headers as Named[]).some((h) => h.name === "end-user"),
      {
        headers: [header("end-user", { exact: "jason" }), header("x-canary", regex(".*")), header("x-version", regex("v[23]"))],
        backends: [{ host: "reviews-v2.bookinfo.svc.cluster.local", weight: 100 }],
      },
    ],
    [
      "query parameters (exact, presence) are query matches, with the request header the policy adds",
      (m) => Array.isArray(m.queryParameters),
      { query: [header("debug", { exact: "1" }), header("trace", regex(".*"))], requestAdd: [{ header: { key: "x-debug", value: "on" } }] },
    ],
    [
      "a method is a :method header match",
      (m) => (m.headers as Named[] | undefined)?.[0]?.name === ":method",
      { headers: [header(":method", { exact: "POST" })], timeout: "10s" },
    ],
  ])("%s", (_name, which, expected) => {
    expect(routeWhere(routes, which)).toMatchObject(expected);
  });

  it("exact first, then expressions longest first, then method, headers and query, and the catch-all last", () => {
    expect(routes.map((r) => effect(r).path)).toEqual(["/reviews/0", "/reviews/[0-9]+", "/api/v1.*", ".*", ".*", ".*", ".*"]);
    expect(routes.map((r) => effect(r).headers.length + effect(r).query.length)).toEqual([0, 0, 0, 1, 3, 2, 0]);
  });
});

describe("the rule every request without a more specific match takes, judged on the waypoint", () => {
  const everything = routeWhere(waypointRoutes(REVIEWS), (m) => (m.safeRegex as Envoy | undefined)?.regex === ".*" && noHeaders(m));

  it.each<[string, object]>([
    [
      "a request header modifier adds and removes request headers",
      { requestAdd: [{ header: { key: "x-mesh", value: "meshplane" } }], requestRemove: ["x-internal"] },
    ],
    [
      "a response header modifier adds and removes response headers",
      { responseAdd: [{ header: { key: "x-served-by", value: "reviews" } }], responseRemove: ["server"] },
    ],
    ["a mirror with a percentage is a mirror policy with that runtime fraction", { mirrors: [{ host: "audit.bookinfo.svc.cluster.local", percent: 12.5 }] }],
    ["requestTimeout is the route's timeout", { timeout: "7s" }],
    ["retries are the retry policy: attempts, status codes, perTryTimeout", { retries: { attempts: 4, codes: [502, 503], perTry: "2s" } }],
    [
      "a weighted trafficShift is weighted clusters",
      {
        backends: [
          { host: REVIEWS, weight: 75 },
          { host: "reviews-v2.bookinfo.svc.cluster.local", weight: 25 },
        ],
      },
    ],
  ])("%s", (_name, expected) => {
    expect(everything).toMatchObject(expected);
  });

  it("a whole-percent mirror is a mirror policy of that percentage", () => {
    expect(routeWhere(waypointRoutes(DETAILS), noHeaders).mirrors).toEqual([{ host: "audit.bookinfo.svc.cluster.local", percent: 50 }]);
  });
});

/** The waypoint's cluster for `host`:9080. */
function waypointCluster(host: string): Envoy {
  const found = clusterNamed(waypoint, `inbound-vip|9080|http|${host}`);
  if (found === undefined) throw new Error(`no waypoint cluster for ${host}`);
  return found;
}

/** The TLS transport sockets of the waypoint's cluster for `host` (inside its internal upstream). */
const tls = (host: string) => findAll(waypointCluster(host).transportSocket, (o) => o.name === "envoy.transport_sockets.tls");

describe("DestinationRule settings on the waypoint's clusters for the service", () => {
  it("outlierDetection is the cluster's outlier detection", () => {
    expect(waypointCluster(REVIEWS).outlierDetection).toMatchObject({ consecutive5xx: 5, interval: "10s", baseEjectionTime: "30s", maxEjectionPercent: 50 });
  });

  it("connectionPool is the cluster's circuit breakers", () => {
    const thresholds = (waypointCluster(REVIEWS).circuitBreakers as { thresholds: Envoy[] }).thresholds;
    expect(thresholds[0]).toMatchObject({ maxConnections: 100, maxPendingRequests: 10 });
  });

  it("loadBalancer is the cluster's load-balancing policy (RANDOM: Istio's default is LEAST_REQUEST)", () => {
    expect(waypointCluster(REVIEWS).lbPolicy).toBe("RANDOM");
    expect(waypointCluster(DETAILS).lbPolicy).toBe("LEAST_REQUEST");
  });

  it("mtls SIMPLE makes the waypoint originate TLS inside the tunnel; without it, none (HBONE is mTLS already)", () => {
    expect(tls(DETAILS)).toHaveLength(1);
    expect(tls(REVIEWS)).toEqual([]);
  });
});

describe("a sidecar caller of a GATEWAY_API mesh", () => {
  it.each([REVIEWS, DETAILS])("gets the same routes for %s from the HTTPRoute as the waypoint, and calls the service directly", (host) => {
    const mine = sidecarRoutes(host);
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.map(effect)).toEqual(waypointRoutes(host).map(effect));
    for (const route of mine) expect(clustersOf(route).every((c) => c.startsWith("outbound|"))).toBe(true);
  });
});
