import { describe, expect, it } from "vitest";
import type { Container, StringMap } from "./kube";
import { intendedSidecar, podSidecar, requestedRevision } from "./sidecars";
import { APP, ISTIO_PROXY } from "./test-objects";

const istioInit: Container = { name: "istio-init", image: "docker.io/istio/proxyv2:1.24.2" };
const envoy: Container = { name: "envoy", image: "envoyproxy/envoy-distroless:v1.25.2" };
const osmInit: Container = { name: "osm-init", image: "openservicemesh/init:v1.2.4" };

describe("podSidecar", () => {
  it.each<[string, Container[], Container[], StringMap, ReturnType<typeof podSidecar>]>([
    ["an istio-proxy container", [APP, ISTIO_PROXY], [istioInit], {}, "istio"],
    ["a proxy image named istio-proxy", [APP, { name: "proxy", image: "registry.local/istio-proxy:1.20" }], [], {}, "istio"],
    ["a native sidecar", [APP], [{ ...ISTIO_PROXY, restartPolicy: "Always" }], {}, "istio"],
    ["only the istio-init init container", [APP], [istioInit], {}, undefined],
    ["the injector status annotation", [APP], [], { "sidecar.istio.io/status": '{"revision":"default"}' }, "istio"],
    ["envoy with osm-init", [APP, envoy], [osmInit], {}, "osm"],
    ["envoy without osm-init", [APP, envoy], [], {}, undefined],
    ["no proxy at all", [APP], [], {}, undefined],
  ])("%s", (_what, containers, initContainers, annotations, expected) => {
    expect(podSidecar({ metadata: { annotations }, spec: { containers, initContainers } })).toBe(expected);
  });
});

describe("intendedSidecar", () => {
  const none = { templateLabels: {}, templateAnnotations: {}, namespaceLabels: {}, namespaceAnnotations: {} };
  it.each<[string, Partial<typeof none>, ReturnType<typeof intendedSidecar>]>([
    ["nothing labelled", {}, undefined],
    ["istio-injection=enabled namespace", { namespaceLabels: { "istio-injection": "enabled" } }, "istio"],
    ["istio.io/rev namespace", { namespaceLabels: { "istio.io/rev": "1-24" } }, "istio"],
    ["template opting in", { templateLabels: { "sidecar.istio.io/inject": "true" } }, "istio"],
    ["template with a revision", { templateLabels: { "istio.io/rev": "1-24" } }, "istio"],
    [
      "template opting out of a labelled namespace",
      { namespaceLabels: { "istio-injection": "enabled" }, templateLabels: { "sidecar.istio.io/inject": "false" } },
      undefined,
    ],
    [
      "template opting in, namespace disabled",
      { namespaceLabels: { "istio-injection": "disabled" }, templateLabels: { "sidecar.istio.io/inject": "true" } },
      undefined,
    ],
    ["OSM-annotated namespace", { namespaceAnnotations: { "openservicemesh.io/sidecar-injection": "enabled" } }, "osm"],
    ["OSM-monitored namespace", { namespaceLabels: { "openservicemesh.io/monitored-by": "osm" } }, "osm"],
    [
      "OSM namespace, template disabled",
      { namespaceLabels: { "openservicemesh.io/monitored-by": "osm" }, templateAnnotations: { "openservicemesh.io/sidecar-injection": "disabled" } },
      undefined,
    ],
  ])("%s", (_what, context, expected) => {
    expect(intendedSidecar({ ...none, ...context })).toBe(expected);
  });
});

describe("requestedRevision", () => {
  it.each<[(StringMap | undefined)[], string | undefined]>([
    [[{ "istio.io/rev": "1-24" }, { "istio.io/rev": "1-23" }], "1-24"],
    [[{}, { "istio.io/rev": "1-23" }], "1-23"],
    [[undefined, {}], undefined],
  ])("%j → %s", (maps, revision) => {
    expect(requestedRevision(...maps)).toBe(revision);
  });
});
