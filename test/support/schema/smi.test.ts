import { describe, expect, it } from "vitest";
import { loadSmiSchemas, validateGenerated } from "./index";

const metadata = { name: "reviews", namespace: "bookinfo" };

const split = {
  apiVersion: "split.smi-spec.io/v1alpha2",
  kind: "TrafficSplit",
  metadata,
  spec: {
    service: "reviews",
    backends: [
      { service: "reviews-v1", weight: 90 },
      { service: "reviews-v2", weight: 10 },
    ],
  },
};
const target = {
  apiVersion: "access.smi-spec.io/v1alpha3",
  kind: "TrafficTarget",
  metadata,
  spec: {
    destination: { kind: "ServiceAccount", name: "bookinfo-reviews", namespace: "bookinfo" },
    sources: [{ kind: "ServiceAccount", name: "bookinfo-productpage", namespace: "bookinfo" }],
    rules: [{ kind: "HTTPRouteGroup", name: "reviews-routes", matches: ["get-reviews"] }],
  },
};
const group = {
  apiVersion: "specs.smi-spec.io/v1alpha4",
  kind: "HTTPRouteGroup",
  metadata,
  spec: { matches: [{ name: "get-reviews", pathRegex: "/reviews/.*", methods: ["GET"], headers: [{ "end-user": "jason" }] }] },
};
const VALID = [split, target, group];

describe("validateGenerated for SMI kinds", () => {
  it("loads the served SMI kinds from the OSM module once per process", () => {
    const schemas = loadSmiSchemas();
    expect([...schemas.keys()].toSorted()).toEqual([
      "access.smi-spec.io/v1alpha3/TrafficTarget",
      "specs.smi-spec.io/v1alpha4/HTTPRouteGroup",
      "specs.smi-spec.io/v1alpha4/TCPRoute",
      "split.smi-spec.io/v1alpha2/TrafficSplit",
    ]);
    expect(loadSmiSchemas()).toBe(schemas);
  });

  it.each(VALID.map((o) => [o.kind, o] as const))("accepts a valid %s, strictly too", (_kind, object) => {
    expect(validateGenerated(object)).toEqual([]);
    expect(validateGenerated(object, { strict: true })).toEqual([]);
  });

  it("rejects a TrafficSplit with a string weight and a backend without one", () => {
    const bad = { ...split, spec: { service: "reviews", backends: [{ service: "reviews-v1", weight: "90" }, { service: "reviews-v2" }] } };
    expect(validateGenerated(bad)).toEqual(['spec.backends[0].weight: must be number, got "90"', "spec.backends[1].weight: required field is missing"]);
  });

  it("rejects a TrafficTarget rule of an unknown route kind and an HTTPRouteGroup with a map of headers", () => {
    const badTarget = { ...target, spec: { ...target.spec, rules: [{ kind: "HTTPRoute", name: "reviews-routes" }] } };
    expect(validateGenerated(badTarget)).toEqual(['spec.rules[0].kind: must be one of "HTTPRouteGroup", "TCPRoute", "UDPRoute", got "HTTPRoute"']);
    // The CRD takes a list of header maps; a single map is an easy mistake for a translator to make.
    const badGroup = { ...group, spec: { matches: [{ name: "get-reviews", headers: { "end-user": "jason" } }] } };
    expect(validateGenerated(badGroup)).toEqual(['spec.matches[0].headers: must be array, got {"end-user":"jason"}']);
  });

  it("reports unknown fields and missing metadata only when strict", () => {
    // `matches` exists in later TrafficSplit versions, not in the v1alpha2 OSM serves.
    const withMatches = { ...split, metadata: { name: "reviews" }, spec: { service: "reviews", backends: [], matches: [] } };
    expect(validateGenerated(withMatches)).toEqual([]);
    expect(validateGenerated(withMatches, { strict: true })).toEqual(["metadata.namespace: required field is missing", "spec.matches: unknown field"]);
  });

  it.each([
    ["split.smi-spec.io/v1alpha4", "TrafficSplit"],
    ["access.smi-spec.io/v1alpha2", "TrafficTarget"],
    ["specs.smi-spec.io/v1alpha4", "UDPRoute"],
  ])("has no schema for the unserved or unknown %s/%s", (apiVersion, kind) => {
    const object = { apiVersion, kind, metadata, spec: {} };
    expect(validateGenerated(object)).toEqual([`no schema for ${apiVersion}/${kind}`]);
  });
});
