import { describe, expect, it } from "vitest";
import type { DataPlaneMode, Mesh } from "../api/discovery";
import { ambientCapable, ambientLabelled, attachZtunnel, destinationDataPlane } from "./ambient";
import { indexCluster } from "./cluster-index";
import type { PodController } from "./kube";
import { cluster, controller, istioMesh, ztunnel } from "./test-objects";

describe("ambientCapable", () => {
  it.each([
    ["1.24.0", true],
    ["1.24.2", true],
    ["1.25.0-beta.1", true],
    ["v1.26", true],
    ["2.0.0", true],
    ["1.23.4", false],
    ["1.22.0", false],
    ["latest", false],
    ["unknown", false],
  ])("Istio %s: %s", (version, expected) => {
    expect(ambientCapable(version)).toBe(expected);
  });
});

const ambientOf = (daemonSets: PodController[], meshes: Mesh[]) =>
  attachZtunnel(indexCluster(cluster({ daemonSets })), meshes).map((m) => [m.metadata.name, m.spec.istio?.ambient]);

describe("attachZtunnel", () => {
  it("gives the ztunnel DaemonSet's namespace and image version to the default mesh", () => {
    expect(ambientOf([ztunnel("istio-system", "gcr.io/istio-release/ztunnel:1.24.2-distroless")], [istioMesh()])).toEqual([
      ["istiod-istio--system-cluster1", { ztunnel: { namespace: "istio-system", version: "1.24.2" } }],
    ]);
  });

  it.each<[string, PodController, Mesh[], (string | undefined)[]]>([
    ["an Istio older than 1.24", ztunnel(), [istioMesh({ version: "1.23.2" })], [undefined]],
    ["a DaemonSet named otherwise", { ...ztunnel(), metadata: { name: "ztunnel-x", namespace: "istio-system" } }, [istioMesh()], [undefined]],
    ["a ztunnel DaemonSet without ztunnel's image", controller("ztunnel", "istio-system"), [istioMesh()], [undefined]],
    [
      "a revisioned ztunnel",
      ztunnel("istio-system", undefined, { "istio.io/rev": "1-25" }),
      [istioMesh({ revision: "1-25" }), istioMesh()],
      ["istio-system", undefined],
    ],
    ["no revision, with only a revisioned mesh", ztunnel("kube-system"), [istioMesh({ revision: "1-25" })], ["kube-system"]],
  ])("with %s", (_what, daemonSet, meshes, namespaces) => {
    expect(ambientOf([daemonSet], meshes).map(([, ambient]) => (ambient as { ztunnel: { namespace: string } } | undefined)?.ztunnel.namespace)).toEqual(
      namespaces,
    );
  });

  it("leaves OSM meshes and a cluster without ztunnel alone", () => {
    const osm: Mesh = {
      kind: "Mesh",
      metadata: { name: "osm", cluster: "cluster1" },
      spec: { type: "osm", cluster: "cluster1", namespace: "osm-system", version: "1.2.4" },
    };
    expect(ambientOf([ztunnel()], [osm])).toEqual([["osm", undefined]]);
    expect(ambientOf([], [istioMesh()])).toEqual([["istiod-istio--system-cluster1", undefined]]);
  });
});

describe("ambientLabelled", () => {
  const AMBIENT = { "istio.io/dataplane-mode": "ambient" };
  const NONE = { "istio.io/dataplane-mode": "none" };
  it.each<[string, string, Record<string, string> | undefined, Record<string, string>, boolean, boolean]>([
    ["an ambient namespace", "shop", undefined, AMBIENT, false, true],
    ["an ambient pod in a plain namespace", "shop", AMBIENT, {}, false, true],
    ["an ambient pod in a namespace labelled none (the pod wins)", "shop", AMBIENT, NONE, false, true],
    ["a pod opting out of its ambient namespace", "shop", NONE, AMBIENT, false, false],
    ["a pod with another value in an ambient namespace (only none opts out)", "shop", { "istio.io/dataplane-mode": "other" }, AMBIENT, false, true],
    ["a host-network pod in an ambient namespace", "shop", undefined, AMBIENT, true, false],
    ["an ambient pod in kube-system", "kube-system", AMBIENT, AMBIENT, false, false],
    ["a plain pod in a plain namespace", "shop", { app: "a" }, {}, false, false],
    ["a namespace labelled none", "shop", undefined, NONE, false, false],
  ])("%s", (_what, namespace, podLabels, namespaceLabels, hostNetwork, expected) => {
    expect(ambientLabelled(namespace, podLabels, namespaceLabels, hostNetwork)).toBe(expected);
  });
});

const backed = (...modes: (DataPlaneMode | undefined)[]) => modes.map((dataPlane) => ({ spec: dataPlane ? { dataPlane } : {} }));

describe("destinationDataPlane", () => {
  it.each<[string, ReturnType<typeof backed>, Record<string, string>, Mesh, string]>([
    ["one ambient workload", backed("ambient"), {}, istioMesh({ ztunnel: true }), "ambient"],
    ["sidecar workloads", backed("sidecar", "sidecar"), {}, istioMesh(), "sidecar"],
    ["a workload an older agent reported (no dataPlane)", backed(undefined), {}, istioMesh(), "sidecar"],
    ["sidecar and ambient workloads", backed("sidecar", "ambient"), {}, istioMesh({ ztunnel: true }), "mixed"],
    ["no workload, an ambient namespace, ztunnel running", backed(), { "istio.io/dataplane-mode": "ambient" }, istioMesh({ ztunnel: true }), "ambient"],
    ["no workload, an ambient namespace, no ztunnel", backed(), { "istio.io/dataplane-mode": "ambient" }, istioMesh(), "sidecar"],
    ["no workload, a plain namespace", backed(), {}, istioMesh({ ztunnel: true }), "sidecar"],
  ])("%s", (_what, workloads, namespaceLabels, mesh, expected) => {
    expect(destinationDataPlane(workloads, "shop", namespaceLabels, mesh)).toBe(expected);
  });
});
