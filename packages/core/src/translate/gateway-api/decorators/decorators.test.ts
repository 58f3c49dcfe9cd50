import { describe, expect, it } from "vitest";
import type { Destination, GatewayApiCrds, Mesh, TrafficPolicyFeatures, TrafficPolicySpec } from "../../../api/index";
import { buildModel } from "../../input/model";
import type { RouteContext } from "../../istio/decorators/index";
import type { FederationPlan } from "../../virtual-mesh/federation-plan";
import { gatewayPolicyErrors } from "../policy-errors";
import { mirror } from "./mirror";
import { retries } from "./retries";
import { trafficShift } from "./traffic-shift";
import type { RuleDecorator } from "./types";

function mesh(cluster: string, version: string, gatewayApi?: GatewayApiCrds): Mesh {
  return {
    kind: "Mesh",
    metadata: { name: `istiod-${cluster}`, cluster },
    spec: {
      type: "istio",
      cluster,
      namespace: "istio-system",
      version,
      istio: {
        trustDomain: "cluster.local",
        istiodServiceAccount: "istiod",
        smartDnsProxyingEnabled: true,
        gateways: [],
        ...(gatewayApi ? { gatewayApi } : {}),
      },
    },
  };
}

function service(name: string, namespace = "shop", cluster = "c1", ports = [9080]): Destination {
  return {
    kind: "Destination",
    metadata: { name: `${name}-${namespace}-${cluster}`, cluster },
    spec: {
      name,
      namespace,
      cluster,
      mesh: `istiod-${cluster}`,
      labels: {},
      selector: { app: name },
      ports: ports.map((port) => ({ name: `http-${port}`, port, protocol: "TCP" })),
      subsets: {},
      endpoints: [],
      workloads: [],
    },
  };
}

const CART = service("cart");
const DESTINATIONS = [
  CART,
  service("cart-v2"),
  service("audit"),
  service("billing", "pay"),
  service("cart", "shop", "c2"),
  service("multi", "shop", "c1", [80, 81]),
];

/**
 * Runs one decorator for the cart service on port 9080 of a mesh at `version`, whose cluster's
 * HTTPRoute CRD discovery read as `gatewayApi` (unset: not reported); its result and the errors it reported.
 */
function decorate(decorator: RuleDecorator, features: TrafficPolicyFeatures, version = "1.25.0", gatewayApi?: GatewayApiCrds) {
  const model = buildModel({
    tenant: "t",
    clusters: ["c1", "c2"],
    meshes: [mesh("c1", version, gatewayApi), mesh("c2", version, gatewayApi)],
    workloads: [],
    destinations: DESTINATIONS,
    virtualMeshes: [],
    trafficPolicies: [],
    accessPolicies: [],
  });
  const errors: string[] = [];
  const ctx: RouteContext = { model, destination: CART, port: 9080, report: (e) => errors.push(e) };
  return { fields: decorator.decorate(features, ctx), errors };
}

const ref = (name: string, namespace = "shop", cluster = "c1") => ({ cluster, namespace, name });

describe("retries → retry and timeouts.backendRequest", () => {
  it.each<[string, TrafficPolicyFeatures["retries"], unknown]>([
    ["attempts only", { attempts: 3 }, { retry: { attempts: 3 } }],
    ["status codes, sorted and once each", { attempts: 2, retryOn: "503,500,503" }, { retry: { attempts: 2, codes: [500, 503] } }],
    ["4xx codes too", { attempts: 1, retryOn: "429" }, { retry: { attempts: 1, codes: [429] } }],
    ["perTryTimeout → backendRequest", { attempts: 3, perTryTimeout: "1500ms" }, { retry: { attempts: 3 }, timeouts: { backendRequest: "1s500ms" } }],
  ])("%s", (_name, r, expected) => {
    expect(decorate(retries, { retries: r })).toEqual({ fields: expected, errors: [] });
  });

  it("a perTryTimeout within requestTimeout is fine", () => {
    expect(decorate(retries, { retries: { attempts: 2, perTryTimeout: "1s" }, requestTimeout: "1s" }).errors).toEqual([]);
  });

  it.each<[string, TrafficPolicyFeatures, string, string?]>([
    ["Istio older than 1.25", { retries: { attempts: 3 } }, "retries: Istio implements HTTPRoute retries from 1.25; mesh istiod-c1 runs 1.24.2", "1.24.2"],
    ["attempts 0", { retries: { attempts: 0 } }, "retries.attempts 0: Gateway API's retry takes at least 1 attempt"],
    ["a retryOn condition that is not a status code", { retries: { attempts: 3, retryOn: "5xx,reset,503" } }, "retries.retryOn 5xx,reset:"],
    ["a status code outside 400-599", { retries: { attempts: 3, retryOn: "302" } }, "retries.retryOn 302:"],
    [
      "a perTryTimeout Gateway API cannot write",
      { retries: { attempts: 3, perTryTimeout: "100000h" } },
      "retries.perTryTimeout 100000h is longer than Gateway API can write",
    ],
    [
      "a perTryTimeout longer than requestTimeout",
      { retries: { attempts: 3, perTryTimeout: "2s" }, requestTimeout: "1500ms" },
      "retries.perTryTimeout is longer than requestTimeout",
    ],
  ])("INVALID: %s", (_name, features, error, version) => {
    const { fields, errors } = decorate(retries, features, version);
    expect(fields).toBeUndefined();
    expect(errors).toEqual([expect.stringContaining(error)]);
  });
});

describe("retries and the cluster's HTTPRoute CRD (docs/ambient.md#retries-and-the-crd-channel)", () => {
  const experimental: GatewayApiCrds = { httpRoute: { bundleVersion: "v1.6.0", channel: "experimental", retry: true } };

  it.each<[string, GatewayApiCrds | undefined]>([
    ["a CRD that declares retry", experimental],
    ["not reported (an older agent): applied as before", undefined],
  ])("retry is written: %s", (_name, gatewayApi) => {
    expect(decorate(retries, { retries: { attempts: 3 } }, "1.25.0", gatewayApi)).toEqual({ fields: { retry: { attempts: 3 } }, errors: [] });
  });

  it.each<[string, GatewayApiCrds, string]>([
    [
      "the standard channel",
      { httpRoute: { bundleVersion: "v1.6.0", channel: "standard", retry: false } },
      "retries: cluster c1's HTTPRoute CRD (Gateway API v1.6.0, standard channel) does not declare retry, so its API server would refuse the route; install Gateway API's experimental channel (its HTTPRoute CRD declares retry), or drop retries, or set routing.api ISTIO on its VirtualMesh",
    ],
    [
      "a CRD without annotations",
      { httpRoute: { retry: false } },
      "retries: cluster c1's HTTPRoute CRD (Gateway API of an unannotated version) does not declare retry",
    ],
    ["no HTTPRoute CRD", {}, "retries: cluster c1 has no HTTPRoute CRD (no Gateway API installed); install Gateway API's experimental channel"],
  ])("INVALID: %s", (_name, gatewayApi, error) => {
    const { fields, errors } = decorate(retries, { retries: { attempts: 3 } }, "1.25.0", gatewayApi);
    expect(fields).toBeUndefined();
    expect(errors).toEqual([expect.stringContaining(error)]);
  });
});

describe("mirror → RequestMirror", () => {
  it.each<[string, number | undefined, object]>([
    ["no percentage: every request", undefined, {}],
    ["a whole percentage → percent", 25, { percent: 25 }],
    ["0 → percent 0", 0, { percent: 0 }],
    ["100 → percent 100", 100, { percent: 100 }],
    ["a fraction of a percent → fraction of a million", 0.5, { fraction: { numerator: 5000, denominator: 1_000_000 } }],
    ["a non-whole percentage → fraction", 12.345, { fraction: { numerator: 123_450, denominator: 1_000_000 } }],
  ])("%s", (_name, percentage, share) => {
    const m = { kubeService: ref("audit"), ...(percentage === undefined ? {} : { percentage }) };
    expect(decorate(mirror, { mirror: m })).toEqual({ fields: { requestMirror: { backendRef: { name: "audit", port: 9080 }, ...share } }, errors: [] });
  });

  it.each([
    ["another namespace", ref("billing", "pay"), "mirror destination c1/pay/billing is in another namespace"],
    ["another cluster", ref("cart", "shop", "c2"), "mirror destination c2/shop/cart is in another cluster"],
    ["a multi-port target without port", ref("multi"), "mirror destination c1/shop/multi has several ports"],
  ])("INVALID: %s", (_name, kubeService, error) => {
    const { fields, errors } = decorate(mirror, { mirror: { kubeService } });
    expect(fields).toBeUndefined();
    expect(errors).toEqual([expect.stringContaining(error)]);
  });

  it("an unknown target is left to the policy's own check", () => {
    expect(decorate(mirror, { mirror: { kubeService: ref("gone") } })).toEqual({ fields: undefined, errors: [] });
  });
});

describe("trafficShift → weighted backendRefs", () => {
  it.each<[string, { name: string; weight: number; port?: number }[], unknown[]]>([
    [
      "weights summing to 100 as written",
      [
        { name: "cart", weight: 90 },
        { name: "cart-v2", weight: 10 },
      ],
      [
        { name: "cart", port: 9080, weight: 90 },
        { name: "cart-v2", port: 9080, weight: 10 },
      ],
    ],
    [
      "weights scaled to 100",
      [
        { name: "cart", weight: 1 },
        { name: "cart-v2", weight: 3 },
      ],
      [
        { name: "cart", port: 9080, weight: 25 },
        { name: "cart-v2", port: 9080, weight: 75 },
      ],
    ],
    [
      "a zero weight kept",
      [
        { name: "cart", weight: 0 },
        { name: "cart-v2", weight: 5 },
      ],
      [
        { name: "cart", port: 9080, weight: 0 },
        { name: "cart-v2", port: 9080, weight: 100 },
      ],
    ],
    ["an explicit port", [{ name: "multi", weight: 1, port: 81 }], [{ name: "multi", port: 81, weight: 100 }]],
  ])("%s", (_name, targets, backendRefs) => {
    const destinations = targets.map(({ name, weight, port }) => ({ kubeService: { ...ref(name), ...(port === undefined ? {} : { port }) }, weight }));
    expect(decorate(trafficShift, { trafficShift: { destinations } })).toEqual({ fields: { backendRefs }, errors: [] });
  });

  it.each([
    [
      "a subset",
      { ...ref("cart"), subset: { version: "v2" } },
      "names subset version=v2, which Gateway API cannot route to (a backendRef is a whole Service): create a Service selecting the pods of cart labelled version=v2",
    ],
    ["another namespace", ref("billing", "pay"), "would need a ReferenceGrant in pay"],
    ["another cluster", ref("cart", "shop", "c2"), "is in another cluster"],
  ])("INVALID: %s", (_name, kubeService, error) => {
    const { fields, errors } = decorate(trafficShift, {
      trafficShift: {
        destinations: [
          { kubeService: ref("cart"), weight: 50 },
          { kubeService, weight: 50 },
        ],
      },
    });
    expect(fields).toBeUndefined();
    expect(errors).toEqual([expect.stringContaining(error)]);
  });

  it("an empty subset is the whole Service", () => {
    const { errors } = decorate(trafficShift, { trafficShift: { destinations: [{ kubeService: { ...ref("cart-v2"), subset: {} }, weight: 1 }] } });
    expect(errors).toEqual([]);
  });
});

/** A federation plan exporting the destinations named. */
const plan = (exported: string[] = []): FederationPlan => ({ members: new Map(), exports: new Map(exported.map((n) => [n, {}])) }) as unknown as FederationPlan;
const spec = (s: Partial<TrafficPolicySpec>): TrafficPolicySpec => ({ policy: {}, ...s });

describe("gatewayPolicyErrors: what Gateway API output refuses, with the alternative", () => {
  it.each<[string, Partial<TrafficPolicySpec>, string[]]>([
    ["a plain timeout", { policy: { requestTimeout: "1s" } }, []],
    ["DestinationRule features", { policy: { outlierDetection: { consecutiveErrors: 5 }, connectionPool: { tcp: { maxConnections: 10 } } } }, []],
    ["fault injection", { policy: { faultInjection: { abort: { httpStatus: 503 }, percentage: 10 } } }, ["faultInjection: Gateway API has no fault injection"]],
    ["CORS", { policy: { corsPolicy: { allowMethods: ["GET"] } } }, ["corsPolicy: meshplane does not generate Gateway API's CORS filter yet"]],
    [
      "sourceSelector",
      { sourceSelector: [{ kubeWorkloadMatcher: { labels: { app: "web" } } }], policy: { requestTimeout: "1s" } },
      ["sourceSelector: an HTTPRoute applies to every caller of the service (a waypoint cannot tell the caller's labels)"],
    ],
    ["ignoreCase", { httpRequestMatchers: [{ uri: { prefix: "/a", ignoreCase: true } }], policy: { requestTimeout: "1s" } }, ["uri.ignoreCase"]],
    [
      "fault injection and CORS together, in the table's order",
      { policy: { corsPolicy: { allowMethods: ["GET"] }, faultInjection: { fixedDelay: "1s", percentage: 1 } } },
      ["faultInjection:", "corsPolicy:"],
    ],
  ])("%s", (_name, s, errors) => {
    expect(gatewayPolicyErrors(spec(s), CART, plan())).toEqual(errors.map((e) => expect.stringContaining(e)));
  });

  it("route features on a federated service, but not DestinationRule features", () => {
    expect(gatewayPolicyErrors(spec({ policy: { requestTimeout: "1s", mirror: { kubeService: ref("audit") } } }), CART, plan([CART.metadata.name]))).toEqual([
      expect.stringContaining("requestTimeout, mirror: this service is federated to other meshes"),
    ]);
    expect(gatewayPolicyErrors(spec({ policy: { outlierDetection: { consecutiveErrors: 5 } } }), CART, plan([CART.metadata.name]))).toEqual([]);
  });
});
