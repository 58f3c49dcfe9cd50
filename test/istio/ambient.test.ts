/**
 * Ambient AccessPolicies judged by Istio's own code (docs/ambient.md#accesspolicy): meshplane's
 * translation of a tenant with an ambient cluster, plus that cluster's objects, given to istiod's
 * ambient index; what it tells ztunnel shows which policy ztunnel enforces, on which pods, and what
 * it cannot. A hand-written HTTPRoute shows the waypoint's Envoy configuration reaches the routes.
 */
import { describe, expect, it } from "vitest";
import { type TranslateOutput, translate } from "../../packages/core/src/translate/index";
import { buildInput, type TenantDescription } from "../golden/tenant";
import { ambientWorld } from "./ambient-world";
import { routeTargets, virtualHosts } from "./envoy";
import { goldenDescription, type InboundCall, rbacAllows } from "./features-support";
import { type AmbientOutput, type Envoy, judgeAmbient } from "./judge";

interface Judged {
  statuses: TranslateOutput["statuses"];
  ambient: AmbientOutput;
}

/** Translates `description` and judges `cluster` (cluster-1 by default) with the ambient data plane on. */
function judge(description: TenantDescription, extraConfig: object[] = [], cluster = "cluster-1"): Judged {
  const input = buildInput(description);
  const output = translate(input);
  const world = ambientWorld(input, output, cluster, extraConfig);
  if (world === undefined) throw new Error(`${cluster} has no Istio mesh`);
  const ambient = judgeAmbient(world);
  const rejected = ambient.validation.filter((v) => v.error !== undefined);
  if (rejected.length > 0) throw new Error(`istiod rejects ${JSON.stringify(rejected)}`);
  return { statuses: output.statuses, ambient };
}

/** `<namespace>/<workload>` of a pod's `<namespace>/<pod>` (world.ts names pods `<workload>-<ip>`; these workloads are `<app>-<version>`). */
function workloadOf(pod: string): string {
  return pod.split("-").slice(0, 2).join("-");
}

/** An IP in WDS (base64 bytes) as text. */
function ip(bytes: string): string {
  return [...Buffer.from(bytes, "base64")].join(".");
}

/** ztunnel's workload `namespace/name` → the authorization policies it applies by selector. */
function workloadPolicies(ambient: AmbientOutput): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const a of ambient.ztunnel.addresses) {
    const w = a.workload as Envoy | undefined;
    if (w !== undefined) out[`${String(w.namespace)}/${String(w.name)}`] = (w.authorizationPolicies as string[] | undefined) ?? [];
  }
  return out;
}

/** A ztunnel authorization's scope, action and rule groups, with proto3's omitted defaults filled in. */
function effect(policy: Envoy): { scope: unknown; action: unknown; groups: unknown[] } {
  return { scope: policy.scope ?? "GLOBAL", action: policy.action ?? "ALLOW", groups: (policy.groups as unknown[] | undefined) ?? [] };
}

function authorization(ambient: AmbientOutput, key: string): Envoy {
  const found = ambient.ztunnel.authorizations.find((a) => `${String(a.namespace)}/${String(a.name)}` === key);
  if (found === undefined) throw new Error(`ztunnel is told no policy ${key}: ${JSON.stringify(ambient.ztunnel.authorizations.map((a) => a.name))}`);
  return found;
}

/** The `namespace/name` keys of ztunnel's workloads on HBONE (captured and enrolled). */
function hboneWorkloads(ambient: AmbientOutput): string[] {
  return ambient.ztunnel.addresses
    .map((a) => a.workload as Envoy | undefined)
    .filter((w) => w?.tunnelProtocol === "HBONE")
    .map((w) => `${String(w?.namespace)}/${String(w?.name)}`);
}

describe("ambient, no waypoint: what ztunnel is told", () => {
  const judged = judge(goldenDescription("ambient-without-waypoints"));

  it("every ambient pod is captured (Istio's enablement selectors) and on HBONE", () => {
    expect(judged.ambient.enrolled.map(workloadOf)).toEqual(["bookinfo/productpage-v1", "bookinfo/ratings-v1", "bookinfo/reviews-v1", "bookinfo/reviews-v2"]);
    expect(hboneWorkloads(judged.ambient)).toHaveLength(4);
  });

  it("an identities-and-ports AccessPolicy reaches ztunnel as an authorization on the destination's pods", () => {
    expect(judged.statuses["AccessPolicy/ratings-from-reviews"]).toMatchObject({ state: "ACCEPTED" });
    const policy = authorization(judged.ambient, "bookinfo/ratings");
    expect(effect(policy)).toMatchObject({ scope: "WORKLOAD_SELECTOR", action: "ALLOW" });
    const text = JSON.stringify(policy.groups);
    for (const sa of ["reviews-v1", "reviews-v2"]) expect(text).toContain(`cluster.local/ns/bookinfo/sa/${sa}`);
    expect(text).toContain('"destinationPorts":[9080]');
    expect(judged.ambient.ztunnel.status.filter((s) => s.policy === "bookinfo/ratings")).toEqual([]);
    const selected = Object.entries(workloadPolicies(judged.ambient))
      .filter(([, policies]) => policies.includes("bookinfo/ratings"))
      .map(([w]) => w);
    expect(selected.map(workloadOf)).toEqual(["bookinfo/ratings-v1"]);
  });

  it("an AccessPolicy on methods is refused, and generates nothing ztunnel would be told", () => {
    expect(judged.statuses["AccessPolicy/reviews-get-only"]).toMatchObject({ state: "INVALID" });
    expect(judged.ambient.ztunnel.authorizations.map((a) => `${String(a.namespace)}/${String(a.name)}`)).not.toContain("bookinfo/reviews");
  });
});

describe("ambient and sidecars in one mesh", () => {
  const judged = judge(goldenDescription("ambient-mixed-mesh"));

  it("Istio's enablement selectors capture exactly the workloads discovery reports ambient", () => {
    expect(judged.ambient.enrolled.map(workloadOf)).toEqual(["bookinfo/productpage-v1", "bookinfo/reviews-v2"]);
    expect(hboneWorkloads(judged.ambient).map(workloadOf)).toEqual(["bookinfo/productpage-v1", "bookinfo/reviews-v2"]);
  });
});

describe("ambient, no waypoint: why meshplane refuses L7 AccessPolicies", () => {
  const byHand = {
    apiVersion: "security.istio.io/v1",
    kind: "AuthorizationPolicy",
    metadata: { name: "reviews-paths", namespace: "bookinfo" },
    spec: {
      selector: { matchLabels: { app: "reviews" } },
      action: "ALLOW",
      rules: [{ from: [{ source: { principals: ["cluster.local/ns/bookinfo/sa/productpage-v1"] } }], to: [{ operation: { paths: ["/reviews/*"] } }] }],
    },
  };
  const judged = judge(goldenDescription("ambient-without-waypoints"), [byHand]);

  it("ztunnel drops the rule that needs a path: the ALLOW policy admits nobody", () => {
    const policy = authorization(judged.ambient, "bookinfo/reviews-paths");
    expect(effect(policy)).toEqual({ scope: "WORKLOAD_SELECTOR", action: "ALLOW", groups: [] });
    expect(judged.ambient.ztunnel.status).toContainEqual(
      expect.objectContaining({ policy: "bookinfo/reviews-paths", reason: "UnsupportedValue", message: expect.stringContaining("paths") }),
    );
    const pods = Object.entries(workloadPolicies(judged.ambient)).filter(([, p]) => p.includes("bookinfo/reviews-paths"));
    expect(pods.map(([w]) => workloadOf(w))).toEqual(["bookinfo/reviews-v1", "bookinfo/reviews-v2"]);
  });
});

describe("ambient: globalAccessPolicy", () => {
  const description = structuredClone(goldenDescription("ambient-without-waypoints"));
  description.virtualMeshes = [
    { name: "locked-down", spec: { meshes: [{ name: "istiod-istio--system-cluster-1" }], mtlsConfig: { shared: {} }, globalAccessPolicy: "ENABLED" } },
  ] as TenantDescription["virtualMeshes"];
  const judged = judge(description);

  it("its deny-all in the Istio root namespace reaches ztunnel as a global policy admitting nobody", () => {
    const policy = authorization(judged.ambient, "istio-system/global-access-control.workloads");
    expect(effect(policy)).toEqual({ scope: "GLOBAL", action: "ALLOW", groups: [] });
    expect(judged.ambient.ztunnel.status.filter((s) => s.policy === "istio-system/global-access-control.workloads")).toEqual([]);
  });
});

describe("a waypoint's Envoy configuration", () => {
  const description: TenantDescription = {
    clusters: {
      "cluster-1": {
        meshes: [{ ambient: true, waypoints: [{ name: "waypoint", namespace: "bookinfo", for: "service" }] }],
        workloads: [
          { name: "reviews-v1", namespace: "bookinfo", labels: { app: "reviews", version: "v1" }, dataPlane: "ambient" },
          { name: "reviews-v2", namespace: "bookinfo", labels: { app: "reviews", version: "v2" }, dataPlane: "ambient" },
        ],
        services: [
          { name: "reviews", namespace: "bookinfo", waypoint: { name: "waypoint", namespace: "bookinfo" } },
          { name: "reviews-v1", namespace: "bookinfo", selector: { app: "reviews", version: "v1" } },
          { name: "reviews-v2", namespace: "bookinfo", selector: { app: "reviews", version: "v2" } },
        ],
      },
    },
  };
  const route = {
    apiVersion: "gateway.networking.k8s.io/v1",
    kind: "HTTPRoute",
    metadata: { name: "reviews", namespace: "bookinfo" },
    spec: {
      parentRefs: [{ group: "", kind: "Service", name: "reviews", port: 9080 }],
      rules: [
        { matches: [{ path: { type: "PathPrefix", value: "/v2" } }], backendRefs: [{ name: "reviews-v2", port: 9080 }] },
        {
          backendRefs: [
            { name: "reviews-v1", port: 9080, weight: 80 },
            { name: "reviews-v2", port: 9080, weight: 20 },
          ],
        },
      ],
    },
  };
  const judged = judge(description, [route]);

  it("the service's waypoint is what ztunnel is told", () => {
    const reviews = judged.ambient.ztunnel.addresses
      .map((a) => a.service as Envoy | undefined)
      .find((s) => s?.hostname === "reviews.bookinfo.svc.cluster.local");
    expect(reviews?.waypoint).toMatchObject({ hostname: { namespace: "bookinfo", hostname: "waypoint.bookinfo.svc.cluster.local" } });
    expect(((reviews?.addresses ?? []) as { address: string }[]).map((a) => ip(a.address))).toEqual(["10.96.0.1"]);
  });

  it("a hand-written HTTPRoute's path match and weighted backends are in the waypoint's routes", () => {
    const config = judged.ambient.waypoints["bookinfo/waypoint"];
    if (config === undefined) throw new Error(`no waypoint: ${Object.keys(judged.ambient.waypoints).join(", ")}`);
    const chain = "inbound-vip|9080|http|reviews.bookinfo.svc.cluster.local";
    const routes = virtualHosts({ ...config, routes: config.routes.filter((r) => r.name === chain) }).flatMap((vh) => vh.routes as Envoy[]);
    const v2 = routes.find((r) => (r.match as Envoy).pathSeparatedPrefix === "/v2" || (r.match as Envoy).prefix === "/v2");
    expect(v2 && routeTargets(v2)).toEqual([{ cluster: "outbound|9080||reviews-v2.bookinfo.svc.cluster.local" }]);
    const rest = routes.at(-1) as Envoy;
    expect(routeTargets(rest)).toEqual([
      { cluster: "outbound|9080||reviews-v1.bookinfo.svc.cluster.local", weight: 80 },
      { cluster: "outbound|9080||reviews-v2.bookinfo.svc.cluster.local", weight: 20 },
    ]);
  });
});

describe("Gateway API output on a waypoint (the gateway-api-features golden)", () => {
  const input = buildInput(goldenDescription("gateway-api-features"));
  const output = translate(input);
  const world = ambientWorld(input, output, "cluster-1");
  if (world === undefined) throw new Error("cluster-1 has no Istio mesh");
  const ambient = judgeAmbient(world);
  const route = (output.clusters["cluster-1"]?.objects ?? []).find((o) => o.kind === "HTTPRoute" && o.metadata.name === "reviews") as
    | { spec: { rules: { matches?: unknown[] }[] } }
    | undefined;

  it("every match of reviews' HTTPRoute is a route of the waypoint, the catch-all last: Istio's precedence shadows none (docs/ambient.md#trafficpolicy-as-httproute)", () => {
    if (route === undefined) throw new Error("no HTTPRoute reviews");
    const config = ambient.waypoints["bookinfo/waypoint"];
    if (config === undefined) throw new Error(`no waypoint: ${Object.keys(ambient.waypoints).join(", ")}`);
    const chain = "inbound-vip|9080|http|reviews.bookinfo.svc.cluster.local";
    const routes = virtualHosts({ ...config, routes: config.routes.filter((r) => r.name === chain) }).flatMap((vh) => vh.routes as Envoy[]);
    const matches = route.spec.rules.reduce((n, rule) => n + (rule.matches?.length ?? 1), 0);
    expect(routes.length).toBe(matches);
    const last = (routes.at(-1) as Envoy).match as Envoy;
    expect(last.safeRegex ?? last.prefix).toMatchObject(last.safeRegex ? { regex: ".*" } : {});
    expect(last.headers ?? []).toEqual([]);
  });
});

/** The filter chain of a waypoint's `main_internal` listener named `chain` (e.g. a service's `inbound-vip|<port>|http|<host>`). */
function waypointChain(ambient: AmbientOutput, waypoint: string, chain: string): Envoy {
  const config = ambient.waypoints[waypoint];
  if (config === undefined) throw new Error(`no waypoint ${waypoint}: ${Object.keys(ambient.waypoints).join(", ")}`);
  const main = config.listeners.find((l) => l.name === "main_internal");
  const found = ((main?.filterChains as Envoy[] | undefined) ?? []).find((fc) => fc.name === chain);
  if (found === undefined) throw new Error(`waypoint ${waypoint} has no chain ${chain}`);
  return found;
}

const spiffe = (sa: string, ns = "bookinfo") => `spiffe://cluster.local/ns/${ns}/sa/${sa}`;

/** productpage's GET /reviews/1 on reviews' service port, with `c` changed. */
const call = (c: Partial<InboundCall>): InboundCall => ({ port: 9080, principal: spiffe("productpage-v1"), method: "GET", path: "/reviews/1", ...c });

describe("AccessPolicies behind a waypoint (the ambient-access-waypoint golden)", () => {
  const judged = judge(goldenDescription("ambient-access-waypoint"));
  const reviews = () => waypointChain(judged.ambient, "bookinfo/waypoint", "inbound-vip|9080|http|reviews.bookinfo.svc.cluster.local");

  it("the waypoint's Envoy configuration enforces each accepted policy: identities, paths, methods, and the Service's port", () => {
    expect(judged.statuses["AccessPolicy/reviews-read-from-productpage"]).toMatchObject({ state: "ACCEPTED" });
    expect(judged.statuses["AccessPolicy/reviews-from-legacy"]).toMatchObject({ state: "ACCEPTED" });
    expect(rbacAllows(reviews(), call({}))).toBe(true);
    expect(rbacAllows(reviews(), call({ method: "HEAD" }))).toBe(true);
    expect(rbacAllows(reviews(), call({ method: "POST" }))).toBe(false);
    expect(rbacAllows(reviews(), call({ path: "/details/1" }))).toBe(false);
    expect(rbacAllows(reviews(), call({ principal: spiffe("ratings-v1") }))).toBe(false);
    // reviews-from-legacy: any path on the Service's port 9080 (the chain the waypoint picks by it), not the pods' 9081.
    expect(rbacAllows(reviews(), call({ principal: spiffe("client", "legacy"), method: "DELETE", path: "/" }))).toBe(true);
    expect(rbacAllows(reviews(), call({ principal: spiffe("client", "legacy"), port: 9081 }))).toBe(false);
  });

  it("ztunnel is told reviews' pods admit the waypoint's own identity and, for callers past no waypoint, the identities-and-ports rule; the Service-bound policy is the waypoint's alone", () => {
    const waypointPod = judged.ambient.ztunnel.addresses.map((a) => a.workload as Envoy | undefined).find((w) => w?.name === "waypoint-0");
    expect(waypointPod).toMatchObject({ namespace: "bookinfo", serviceAccount: "waypoint" });
    const policy = authorization(judged.ambient, "bookinfo/reviews");
    expect(effect(policy)).toMatchObject({ scope: "WORKLOAD_SELECTOR", action: "ALLOW" });
    const text = JSON.stringify(policy.groups);
    expect(text).toContain('"exact":"cluster.local/ns/bookinfo/sa/waypoint"');
    expect(text).toContain('"destinationPorts":[9081]');
    expect(text).not.toContain("productpage-v1");
    expect(judged.ambient.ztunnel.status).toEqual([]);
    expect(judged.ambient.ztunnel.authorizations.map((a) => String(a.name))).not.toContain("reviews.waypoint");
  });

  it("INVALID policies add nothing: ratings' pods (their own waypoint) and details (no waypoint) get no AuthorizationPolicy", () => {
    expect(judged.statuses["AccessPolicy/ratings-from-reviews"]).toMatchObject({ state: "INVALID" });
    expect(judged.statuses["AccessPolicy/details-get-only"]).toMatchObject({ state: "INVALID" });
    const names = judged.ambient.ztunnel.authorizations.map((a) => String(a.name));
    expect(names).not.toContain("ratings");
    expect(names).not.toContain("details");
  });

  it("without globalAccessPolicy a waypoint admits calls no AccessPolicy speaks for: its pod-addressed chain has no RBAC", () => {
    const direct = waypointChain(judged.ambient, "bookinfo/pods-waypoint", "direct-http");
    expect(rbacAllows(direct, call({ principal: spiffe("anyone") }))).toBe(true);
  });
});

describe("globalAccessPolicy through waypoints (the ambient-access-waypoint-global-access golden)", () => {
  const description = goldenDescription("ambient-access-waypoint-global-access");

  it("Istio 1.26: the GatewayClass-bound allow-nothing reaches the waypoint, which refuses a caller no policy admits; ztunnel's global deny-all stands", () => {
    const judged = judge(description);
    const reviews = waypointChain(judged.ambient, "bookinfo/waypoint", "inbound-vip|9080|http|reviews.bookinfo.svc.cluster.local");
    expect(rbacAllows(reviews, call({}))).toBe(true);
    expect(rbacAllows(reviews, call({ principal: spiffe("stranger") }))).toBe(false);
    expect(rbacAllows(waypointChain(judged.ambient, "bookinfo/waypoint", "direct-http"), call({}))).toBe(false);
    expect(effect(authorization(judged.ambient, "istio-system/global-access-control.workloads"))).toEqual({ scope: "GLOBAL", action: "ALLOW", groups: [] });
    expect(judged.ambient.ztunnel.status).toEqual([]);
  });

  it("Istio 1.24: the allow-nothing bound to each waypoint's Gateway refuses every call to a service no AccessPolicy opens", () => {
    const judged = judge(description, [], "cluster-2");
    const anyone = call({ principal: spiffe("anyone", "shop"), path: "/" });
    expect(rbacAllows(waypointChain(judged.ambient, "shop/waypoint", "inbound-vip|9080|http|cart.shop.svc.cluster.local"), anyone)).toBe(false);
    expect(rbacAllows(waypointChain(judged.ambient, "shop/all-traffic", "direct-http"), anyone)).toBe(false);
    expect(effect(authorization(judged.ambient, "istio-system/global-access-control.workloads"))).toEqual({ scope: "GLOBAL", action: "ALLOW", groups: [] });
  });
});

/** A ztunnel string match (exact, prefix, suffix or presence) against `value`. */
function stringMatches(m: Envoy, value: string): boolean {
  if (m.exact !== undefined) return m.exact === value;
  if (m.prefix !== undefined) return value.startsWith(String(m.prefix));
  if (m.suffix !== undefined) return value.endsWith(String(m.suffix));
  return m.presence !== undefined;
}

/** Whether one of ztunnel's matches holds for a call: every field it sets (principals, namespaces, destination ports) admits it. */
function matchHolds(m: Envoy, c: { principal: string; namespace: string; port: number }): boolean {
  const known = new Set(["principals", "namespaces", "destinationPorts"]);
  const unknown = Object.keys(m).filter((k) => !known.has(k));
  if (unknown.length > 0) throw new Error(`this reader does not know ztunnel's match fields ${unknown.join(", ")}`);
  const principals = m.principals as Envoy[] | undefined;
  const namespaces = m.namespaces as Envoy[] | undefined;
  const ports = m.destinationPorts as number[] | undefined;
  return (
    (principals === undefined || principals.some((p) => stringMatches(p, c.principal))) &&
    (namespaces === undefined || namespaces.some((n) => stringMatches(n, c.namespace))) &&
    (ports === undefined || ports.includes(c.port))
  );
}

/**
 * Whether ztunnel's ALLOW authorization `policy` admits a call addressed to the pod: some group
 * holds, a group when each of its rules does, a rule when one of its matches does.
 */
function ztunnelAdmits(policy: Envoy, c: { principal: string; namespace: string; port: number }): boolean {
  if (effect(policy).action !== "ALLOW") throw new Error(`this reader knows ALLOW policies only: ${JSON.stringify(policy)}`);
  return effect(policy).groups.some((g) =>
    (((g as Envoy).rules as Envoy[] | undefined) ?? []).every((r) => ((r.matches as Envoy[] | undefined) ?? []).some((m) => matchHolds(m, c))),
  );
}

describe("sidecar callers of a paths policy behind a waypoint (the ambient-access-waypoint-sidecar-callers golden)", () => {
  const description = goldenDescription("ambient-access-waypoint-sidecar-callers");
  // billing, a sidecar in namespace legacy, calling reviews' pods on their port: a sidecar passes no waypoint.
  const billing = { principal: "cluster.local/ns/legacy/sa/billing", namespace: "legacy", port: 9081 };
  const throughWaypoint = { principal: "cluster.local/ns/bookinfo/sa/waypoint", namespace: "bookinfo", port: 9081 };

  it("without an identities-and-ports policy for them, reviews' pods refuse the sidecar callers the paths policy names: that policy is INVALID", () => {
    const alone = structuredClone(description);
    alone.accessPolicies = alone.accessPolicies?.filter((p) => p.name !== "reviews-from-legacy");
    const judged = judge(alone);
    expect(judged.statuses["AccessPolicy/reviews-read-from-legacy"]).toMatchObject({
      state: "INVALID",
      destinations: {
        "reviews-bookinfo-cluster-1": {
          errors: [expect.stringMatching(/^sourceSelector names sidecar workloads audit-legacy-cluster-1-deployment, billing-/)],
        },
      },
    });
    expect(judged.statuses["AccessPolicy/reviews-read-from-productpage"]).toMatchObject({ state: "ACCEPTED" });
    expect(hboneWorkloads(judged.ambient).map(workloadOf)).toContain("bookinfo/reviews-v1");
    const pods = authorization(judged.ambient, "bookinfo/reviews");
    expect(ztunnelAdmits(pods, throughWaypoint)).toBe(true);
    expect(ztunnelAdmits(pods, billing)).toBe(false);
    expect(judged.ambient.ztunnel.status.filter((s) => s.policy === "bookinfo/reviews")).toEqual([]);
    // The waypoint still enforces the paths policy it was given, for the callers that pass it.
    const reviews = waypointChain(judged.ambient, "bookinfo/waypoint", "inbound-vip|9080|http|reviews.bookinfo.svc.cluster.local");
    expect(rbacAllows(reviews, call({}))).toBe(true);
    expect(rbacAllows(reviews, call({ principal: spiffe("billing", "legacy") }))).toBe(false);
  });

  it("an identities-and-ports policy for them stays ACCEPTED: reviews' pods keep its rule for sidecars, which ztunnel enforces", () => {
    const judged = judge(description);
    expect(judged.statuses["AccessPolicy/reviews-from-legacy"]).toMatchObject({ state: "ACCEPTED" });
    const pods = authorization(judged.ambient, "bookinfo/reviews");
    expect(ztunnelAdmits(pods, billing)).toBe(true);
    expect(ztunnelAdmits(pods, { ...billing, port: 9090 })).toBe(false);
    expect(ztunnelAdmits(pods, { ...billing, principal: "cluster.local/ns/jobs/sa/batch", namespace: "jobs" })).toBe(false);
  });
});
