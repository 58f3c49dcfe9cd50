/**
 * The tenant test/istio/gateway-api.test.ts judges: an ambient mesh (Istio 1.28, so `GATEWAY_API` by
 * default, with retries) whose services reviews and details are bound to a waypoint, a sidecar
 * caller in another namespace, and one TrafficPolicy per feature meshplane maps to HTTPRoute or to
 * the DestinationRule a waypoint honours (docs/ambient.md#trafficpolicy-as-httproute).
 */
import type { TenantDescription } from "../golden/tenant";

const ref = (name: string) => ({ cluster: "cluster-1", namespace: "bookinfo", name });
const on = (name: string) => [{ kubeServiceRefs: { services: [ref(name)] } }];
const waypoint = { name: "waypoint", namespace: "bookinfo" };
const ambient = (name: string, app = name.replace(/-v\d$/, "")) => ({
  name,
  namespace: "bookinfo",
  labels: { app, version: name.slice(-2) },
  dataPlane: "ambient" as const,
});

export const GATEWAY_API_TENANT: TenantDescription = {
  clusters: {
    "cluster-1": {
      meshes: [{ version: "1.28.0", ambient: true, waypoints: [{ ...waypoint, for: "service" }] }],
      workloads: [
        ambient("productpage-v1"),
        ambient("reviews-v1"),
        ambient("reviews-v2", "reviews-v2"),
        ambient("details-v1"),
        ambient("audit-v1"),
        { name: "web-v1", namespace: "frontend", labels: { app: "web", version: "v1" }, dataPlane: "sidecar" },
      ],
      services: [
        { name: "productpage", namespace: "bookinfo" },
        { name: "reviews", namespace: "bookinfo", waypoint },
        { name: "reviews-v2", namespace: "bookinfo", waypoint },
        { name: "details", namespace: "bookinfo", waypoint },
        { name: "audit", namespace: "bookinfo" },
        { name: "web", namespace: "frontend" },
      ],
    },
  },
  trafficPolicies: [
    {
      name: "reviews-exact",
      spec: { destinationSelector: on("reviews"), httpRequestMatchers: [{ uri: { exact: "/reviews/0" } }], policy: { requestTimeout: "3s" } },
    },
    {
      name: "reviews-prefix",
      spec: { destinationSelector: on("reviews"), httpRequestMatchers: [{ uri: { prefix: "/api/v1" } }], policy: { requestTimeout: "4s" } },
    },
    {
      name: "reviews-regex",
      spec: { destinationSelector: on("reviews"), httpRequestMatchers: [{ uri: { regex: "/reviews/[0-9]+" } }], policy: { requestTimeout: "5s" } },
    },
    {
      name: "reviews-headers",
      spec: {
        destinationSelector: on("reviews"),
        httpRequestMatchers: [{ headers: [{ name: "End-User", value: "jason" }, { name: "x-version", value: "v[23]", regex: true }, { name: "x-canary" }] }],
        policy: { trafficShift: { destinations: [{ kubeService: ref("reviews-v2"), weight: 1 }] } },
      },
    },
    {
      name: "reviews-query",
      spec: {
        destinationSelector: on("reviews"),
        httpRequestMatchers: [{ queryParameters: [{ name: "debug", value: "1" }, { name: "trace" }] }],
        policy: { headerManipulation: { appendRequestHeaders: { "x-debug": "on" } } },
      },
    },
    { name: "reviews-method", spec: { destinationSelector: on("reviews"), httpRequestMatchers: [{ method: "POST" }], policy: { requestTimeout: "10s" } } },
    {
      name: "reviews-headers-manipulation",
      spec: {
        destinationSelector: on("reviews"),
        policy: {
          headerManipulation: {
            appendRequestHeaders: { "x-mesh": "meshplane" },
            removeRequestHeaders: ["x-internal"],
            appendResponseHeaders: { "x-served-by": "reviews" },
            removeResponseHeaders: ["server"],
          },
        },
      },
    },
    { name: "reviews-mirror", spec: { destinationSelector: on("reviews"), policy: { mirror: { kubeService: ref("audit"), percentage: 12.5 } } } },
    {
      name: "reviews-retries",
      spec: { destinationSelector: on("reviews"), policy: { retries: { attempts: 4, retryOn: "503,502", perTryTimeout: "2s" }, requestTimeout: "7s" } },
    },
    {
      name: "reviews-shift",
      spec: {
        destinationSelector: on("reviews"),
        policy: {
          trafficShift: {
            destinations: [
              { kubeService: ref("reviews"), weight: 3 },
              { kubeService: ref("reviews-v2"), weight: 1 },
            ],
          },
        },
      },
    },
    {
      name: "reviews-connections",
      spec: {
        destinationSelector: on("reviews"),
        policy: {
          outlierDetection: { consecutiveErrors: 5, interval: "10s", baseEjectionTime: "30s", maxEjectionPercent: 50 },
          connectionPool: { tcp: { maxConnections: 100 }, http: { http1MaxPendingRequests: 10 } },
          loadBalancer: { simple: "RANDOM" },
        },
      },
    },
    { name: "details-mirror", spec: { destinationSelector: on("details"), policy: { mirror: { kubeService: ref("audit"), percentage: 50 } } } },
    { name: "details-tls", spec: { destinationSelector: on("details"), policy: { mtls: { istio: { tlsMode: "SIMPLE" } } } } },
  ],
};
