import { describe, expect, it } from "vitest";
import { validateGenerated } from "./index";

const meta = { name: "reviews", namespace: "bookinfo" };
const HOST = "reviews.bookinfo.svc.cluster.local";

/** One realistic spec per Istio kind, the way the translator generates them. */
const VALID = {
  "networking.istio.io/VirtualService": {
    hosts: [HOST],
    http: [
      {
        match: [{ headers: { "end-user": { exact: "jason" } } }],
        route: [{ destination: { host: HOST, subset: "v2" } }],
        timeout: "5s",
        retries: { attempts: 3, perTryTimeout: "2s", retryOn: "5xx,reset" },
      },
      {
        route: [
          { destination: { host: HOST, subset: "v1" }, weight: 90 },
          { destination: { host: HOST, subset: "v3" }, weight: 10 },
        ],
      },
    ],
  },
  "networking.istio.io/DestinationRule": {
    host: HOST,
    trafficPolicy: { tls: { mode: "ISTIO_MUTUAL" }, outlierDetection: { consecutive5xxErrors: 5, interval: "10s", baseEjectionTime: "30s" } },
    subsets: [{ name: "v1", labels: { version: "v1" } }],
  },
  "networking.istio.io/ServiceEntry": {
    hosts: ["reviews.bookinfo.svc.cluster-west.global"],
    location: "MESH_INTERNAL",
    resolution: "DNS",
    ports: [{ number: 9080, name: "http", protocol: "HTTP" }],
    endpoints: [{ address: "a1b2.elb.eu-west-1.amazonaws.com", ports: { http: 15443 }, labels: { version: "v1" } }],
  },
  "networking.istio.io/Gateway": {
    selector: { istio: "eastwestgateway" },
    servers: [{ port: { number: 15443, name: "tls", protocol: "TLS" }, tls: { mode: "AUTO_PASSTHROUGH" }, hosts: ["*.local"] }],
  },
  "security.istio.io/AuthorizationPolicy": {
    selector: { matchLabels: { app: "reviews" } },
    action: "ALLOW",
    rules: [{ from: [{ source: { principals: ["cluster.local/ns/bookinfo/sa/bookinfo-productpage"] } }], to: [{ operation: { methods: ["GET"] } }] }],
  },
  "security.istio.io/PeerAuthentication": { mtls: { mode: "STRICT" } },
} as const;

/** One schema mistake per kind and the line that must name it. */
const INVALID: [keyof typeof VALID, Record<string, unknown>, string][] = [
  [
    "networking.istio.io/VirtualService",
    { hosts: [HOST], http: [{ timeout: 5, route: [{ destination: { host: HOST } }] }] },
    "spec.http[0].timeout: must be string, got 5",
  ],
  [
    "networking.istio.io/DestinationRule",
    { host: HOST, trafficPolicy: { tls: { mode: "MUTUALX" } } },
    'spec.trafficPolicy.tls.mode: must be one of "DISABLE", "SIMPLE", "MUTUAL", "ISTIO_MUTUAL", got "MUTUALX"',
  ],
  [
    "networking.istio.io/ServiceEntry",
    { hosts: ["a.global"], ports: [{ number: "9080", name: "http", protocol: "HTTP" }] },
    'spec.ports[0].number: must be integer, got "9080"',
  ],
  [
    "networking.istio.io/Gateway",
    { servers: [{ port: { number: 15443, name: "tls", protocol: "TLS" }, hosts: "*.local" }] },
    'spec.servers[0].hosts: must be array, got "*.local"',
  ],
  ["security.istio.io/AuthorizationPolicy", { action: "PERMIT" }, 'spec.action: must be one of "ALLOW", "DENY", "AUDIT", "CUSTOM", got "PERMIT"'],
  [
    "security.istio.io/PeerAuthentication",
    { mtls: { mode: "STRICTLY" } },
    'spec.mtls.mode: must be one of "UNSET", "DISABLE", "PERMISSIVE", "STRICT", got "STRICTLY"',
  ],
];

const versionsOf = (groupKind: string) => (groupKind.startsWith("networking.") ? ["v1", "v1beta1", "v1alpha3"] : ["v1", "v1beta1"]);
const object = (groupKind: string, version: string, spec: unknown) => {
  const [group, kind] = groupKind.split("/") as [string, string];
  return { apiVersion: `${group}/${version}`, kind, metadata: meta, spec };
};

describe("validateGenerated for Istio kinds", () => {
  const valid = Object.entries(VALID).flatMap(([gk, spec]) => versionsOf(gk).map((v) => [gk, v, spec] as const));
  it.each(valid)("accepts a valid %s in %s, strictly too", (gk, version, spec) => {
    expect(validateGenerated(object(gk, version, spec))).toEqual([]);
    expect(validateGenerated(object(gk, version, spec), { strict: true })).toEqual([]);
  });

  const invalid = INVALID.flatMap(([gk, spec, line]) => versionsOf(gk).map((v) => [gk, v, spec, line] as const));
  it.each(invalid)("rejects an invalid %s in %s", (gk, version, spec, line) => {
    expect(validateGenerated(object(gk, version, spec))).toEqual([line]);
  });

  it("says which of mutually exclusive fields were both set", () => {
    const spec = { hosts: [HOST], http: [{ match: [{ uri: { exact: "/a", prefix: "/b" } }], route: [{ destination: { host: HOST } }] }] };
    expect(validateGenerated(object("networking.istio.io/VirtualService", "v1", spec))).toEqual(["spec.http[0].match[0].uri: set only one of exact, prefix"]);
  });

  it("lets unknown fields through, as the API server prunes them, unless strict", () => {
    const spec = { hosts: [HOST], http: [{ route: [{ destination: { host: HOST, subsets: "v1" } }], retries: { attemps: 3 } }] };
    const vs = object("networking.istio.io/VirtualService", "v1", spec);
    expect(validateGenerated(vs)).toEqual([]);
    expect(validateGenerated(vs, { strict: true })).toEqual([
      "spec.http[0].route[0].destination.subsets: unknown field",
      "spec.http[0].retries.attemps: unknown field",
    ]);
  });

  it("checks name and namespace only when strict", () => {
    const vs = {
      apiVersion: "networking.istio.io/v1",
      kind: "VirtualService",
      metadata: { name: "Reviews" },
      spec: VALID["networking.istio.io/VirtualService"],
    };
    expect(validateGenerated(vs)).toEqual([]);
    expect(validateGenerated(vs, { strict: true })).toEqual([
      'metadata.name: "Reviews" is not a DNS-1123 subdomain',
      "metadata.namespace: required field is missing",
    ]);
  });

  it.each([
    ["security.istio.io/v1alpha3", "AuthorizationPolicy"],
    ["networking.istio.io/v1", "EnvoyFilter"],
    ["networking.istio.io/v2", "VirtualService"],
    ["v1", "ConfigMap"],
  ])("has no schema for %s/%s", (apiVersion, kind) => {
    expect(validateGenerated({ apiVersion, kind })).toEqual([`no schema for ${apiVersion}/${kind}`]);
  });
});

const policy = (spec: object) => ({ apiVersion: "security.istio.io/v1", kind: "AuthorizationPolicy", metadata: { name: "p", namespace: "ns" }, spec });

describe("an AuthorizationPolicy's targetRefs (Istio 1.22 and later, newer than the package's CRDs)", () => {
  it("passes as Istio's CRD declares it, also under strict field validation", () => {
    const ok = policy({ targetRefs: [{ group: "", kind: "Service", name: "svc" }], action: "ALLOW", rules: [{ to: [{ operation: { paths: ["/a"] } }] }] });
    expect(validateGenerated(ok, { strict: true })).toEqual([]);
  });

  it("refuses a reference without a name, one into another namespace, and targetRefs beside a selector", () => {
    expect(validateGenerated(policy({ targetRefs: [{ kind: "Service" }] }), { strict: true })).toEqual([expect.stringContaining("spec.targetRefs[0]")]);
    expect(validateGenerated(policy({ targetRefs: [{ kind: "Gateway", name: "w", namespace: "other" }] }))).toEqual([
      expect.stringContaining("spec.targetRefs[0].namespace"),
    ]);
    expect(validateGenerated(policy({ targetRefs: [{ kind: "Gateway", name: "w" }], selector: { matchLabels: { a: "b" } } }))).toEqual([
      "spec: only one of targetRefs or selector can be set",
    ]);
  });
});
