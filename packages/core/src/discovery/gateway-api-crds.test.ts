import { describe, expect, it } from "vitest";
import { discoveryResult } from "../api/discovery";
import { discover } from "./discover";
import { HTTP_ROUTE_CRD, declares, gatewayApiOf } from "./gateway-api-crds";
import type { CrdVersion, CustomResourceDefinition } from "./kube";
import { cluster, istiod } from "./test-objects";

/** An HTTPRoute rule's schema, with `retry` as Gateway API's experimental channel declares it. */
const ruleSchema = (retry: boolean) => ({
  type: "object",
  properties: {
    spec: {
      type: "object",
      properties: {
        rules: {
          type: "array",
          items: { type: "object", properties: { matches: { type: "array" }, ...(retry ? { retry: { type: "object" } } : {}) } },
        },
      },
    },
  },
});

const version = (name: string, retry: boolean, served = true): CrdVersion => ({ name, served, schema: { openAPIV3Schema: ruleSchema(retry) } });

/** The HTTPRoute CRD of a Gateway API bundle, as v1.6.0 annotates it. */
function httpRouteCrd(channel: string, versions: CrdVersion[], annotations: Record<string, string> = {}): CustomResourceDefinition {
  return {
    metadata: {
      name: HTTP_ROUTE_CRD,
      annotations: { "gateway.networking.k8s.io/bundle-version": "v1.6.0", "gateway.networking.k8s.io/channel": channel, ...annotations },
    },
    spec: { versions },
  };
}

describe("gatewayApiOf", () => {
  it.each<[string, CustomResourceDefinition[], ReturnType<typeof gatewayApiOf>]>([
    ["no HTTPRoute CRD: no Gateway API", [], {}],
    ["another CRD only", [{ metadata: { name: "gateways.gateway.networking.k8s.io" } }], {}],
    [
      "the standard channel: no retry",
      [httpRouteCrd("standard", [version("v1", false), version("v1beta1", false)])],
      { httpRoute: { bundleVersion: "v1.6.0", channel: "standard", retry: false } },
    ],
    [
      "the experimental channel: retry",
      [httpRouteCrd("experimental", [version("v1", true), version("v1beta1", true)])],
      { httpRoute: { bundleVersion: "v1.6.0", channel: "experimental", retry: true } },
    ],
    // The API server checks routes against the schema; the annotations only inform.
    [
      "annotated experimental, schema without retry",
      [httpRouteCrd("experimental", [version("v1", false)])],
      { httpRoute: { bundleVersion: "v1.6.0", channel: "experimental", retry: false } },
    ],
    [
      "annotated standard, schema with retry",
      [httpRouteCrd("standard", [version("v1", true)])],
      { httpRoute: { bundleVersion: "v1.6.0", channel: "standard", retry: true } },
    ],
    [
      "retry only in a version meshplane does not write",
      [httpRouteCrd("experimental", [version("v1", false), version("v1beta1", true)])],
      { httpRoute: { bundleVersion: "v1.6.0", channel: "experimental", retry: false } },
    ],
    [
      "v1 not served",
      [httpRouteCrd("experimental", [version("v1", true, false)])],
      { httpRoute: { bundleVersion: "v1.6.0", channel: "experimental", retry: false } },
    ],
    ["no annotations, no versions", [{ metadata: { name: HTTP_ROUTE_CRD } }], { httpRoute: { retry: false } }],
    [
      "annotations that are not label values are left out",
      [httpRouteCrd("x".repeat(64), [version("v1", true)], { "gateway.networking.k8s.io/bundle-version": "v1.6.0; rm -rf" })],
      { httpRoute: { retry: true } },
    ],
  ])("%s", (_, crds, expected) => {
    expect(gatewayApiOf(crds)).toEqual(expected);
  });

  it("walks schemas by their own keys only", () => {
    expect(declares({ properties: { spec: {} } }, ["spec"])).toBe(true);
    expect(declares({ properties: {} }, ["constructor"])).toBe(false);
    expect(declares({ properties: { spec: { items: "x" } } }, ["spec", "[]", "retry"])).toBe(false);
    expect(declares(undefined, ["spec"])).toBe(false);
    expect(declares({ properties: [] }, ["0"])).toBe(false);
  });
});

describe("discover, the cluster's Gateway API", () => {
  const { deployment, configMap } = istiod();
  const base = { deployments: [deployment], configMaps: [configMap] };

  it("puts the HTTPRoute CRD's facts on every Istio mesh, and the report passes the schema", () => {
    const result = discover(cluster({ ...base, customResourceDefinitions: [httpRouteCrd("standard", [version("v1", false)])] }));
    expect(result.meshes.map((m) => m.spec.istio?.gatewayApi)).toEqual([{ httpRoute: { bundleVersion: "v1.6.0", channel: "standard", retry: false } }]);
    expect(discoveryResult.safeParse(result).success).toBe(true);
  });

  it("reports no HTTPRoute when the CRDs were read and the cluster has none", () => {
    const result = discover(cluster({ ...base, customResourceDefinitions: [] }));
    expect(result.meshes[0]?.spec.istio?.gatewayApi).toEqual({});
  });

  it("reports nothing when the CRDs were not read (an older agent or chart): unknown", () => {
    const result = discover(cluster(base));
    expect(result.meshes[0]?.spec.istio).not.toHaveProperty("gatewayApi");
  });
});
