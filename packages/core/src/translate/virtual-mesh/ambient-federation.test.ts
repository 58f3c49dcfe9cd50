import { describe, expect, it } from "vitest";
import type { Destination, Mesh } from "../../api/index";
import { buildModel } from "../input/model";
import { Collector } from "../output/sink";
import { ANNOTATION_GLOBAL_SERVICES, eastWestGatewayObjects, parseGlobalServices, planEastWestGateways } from "./ambient-gateways";
import { federate } from "./federate";
import type { VirtualMesh } from "./membership";

type MultiNetwork = NonNullable<NonNullable<NonNullable<Mesh["spec"]["istio"]>["ambient"]>["multiNetwork"]>;

/** An Istio mesh of `cluster`; ambient with `multiNetwork` as discovery reports it (by default on, with the network net-<cluster>). */
function mesh(
  cluster: string,
  version: string,
  ambient = true,
  multiNetwork: MultiNetwork | null = { enabled: true, network: `net-${cluster}` },
  namespace = "istio-system",
): Mesh {
  return {
    kind: "Mesh",
    metadata: { name: `istiod-${cluster}`, cluster },
    spec: {
      type: "istio",
      cluster,
      namespace,
      version,
      istio: {
        trustDomain: "cluster.local",
        istiodServiceAccount: "istiod",
        smartDnsProxyingEnabled: true,
        gateways: [],
        ...(ambient ? { ambient: { ztunnel: { namespace, version }, ...(multiNetwork === null ? {} : { multiNetwork }) } } : {}),
      },
    },
  };
}

function service(cluster: string, port = 9080): Destination {
  return {
    kind: "Destination",
    metadata: { name: `reviews-bookinfo-${cluster}`, cluster },
    spec: {
      name: "reviews",
      namespace: "bookinfo",
      cluster,
      mesh: `istiod-${cluster}`,
      labels: {},
      selector: { app: "reviews" },
      ports: [{ name: "http", port, protocol: "TCP" }],
      subsets: {},
      endpoints: [],
      workloads: [],
      dataPlane: "ambient",
    },
  };
}

/** cluster c1's Service `name` in mesh `m`. */
function copyIn(m: Mesh, name: string): Destination {
  return { ...service("c1"), spec: { ...service("c1").spec, name, mesh: m.metadata.name } };
}

function virtualMesh(meshes: readonly Mesh[], selector: Record<string, unknown> = {}): VirtualMesh {
  return {
    kind: "VirtualMesh",
    metadata: { name: "vm", uid: "u", generation: 1, createdAt: "2024-01-01T00:00:00Z" },
    spec: { meshes: meshes.map((m) => ({ name: m.metadata.name })), federation: { selectors: [selector] } },
  } as VirtualMesh;
}

function federated(meshes: Mesh[], destinations: Destination[], selector?: Record<string, unknown>) {
  const vm = virtualMesh(meshes, selector);
  const model = buildModel({
    tenant: "t",
    clusters: meshes.map((m) => m.spec.cluster),
    meshes,
    workloads: [],
    destinations,
    virtualMeshes: [vm],
    trafficPolicies: [],
    accessPolicies: [],
  });
  const { plan, statuses } = federate(model);
  return { plan, status: statuses["VirtualMesh/vm" as keyof typeof statuses] };
}

/** Each member's state then errors, by mesh name, for a VirtualMesh federating reviews in every member. */
const errorsOf = (meshes: Mesh[]) => {
  const { status } = federated(
    meshes,
    meshes.map((m) => service(m.spec.cluster)),
  );
  return Object.fromEntries(Object.entries(status?.meshes ?? {}).map(([name, m]) => [name, [m.state, ...(m.errors ?? [])]]));
};

/** Each generated east-west gateway as `cluster namespace/name network [global services]`. */
const gatewaysOf = (meshes: Mesh[], destinations: Destination[]) => {
  const sink = new Collector();
  eastWestGatewayObjects(federated(meshes, destinations).plan.ambient.eastWestGateways, sink);
  return sink.objects.map(
    ({ cluster, draft }) =>
      `${cluster} ${draft.namespace}/${draft.name} ${draft.labels?.["topology.istio.io/network"]} ${draft.annotations?.[ANNOTATION_GLOBAL_SERVICES]}`,
  );
};

describe("ambient multicluster (docs/ambient.md#ambient-multicluster)", () => {
  it("federates ambient members the ambient way: global services, nothing exported the sidecar way", () => {
    const { plan, status } = federated([mesh("c1", "1.29.1"), mesh("c2", "1.29.0")], [service("c1"), service("c2")]);
    expect(plan.exports.size).toBe(0);
    expect(plan.ambient.globalServices.map((s) => [s.namespace, s.name, s.destinations.map((d) => d.spec.cluster)])).toEqual([
      ["bookinfo", "reviews", ["c1", "c2"]],
    ]);
    expect(status?.state).toBe("ACCEPTED");
  });

  it("refuses a member whose Istio cannot do ambient multicluster, naming it", () => {
    const { status } = federated([mesh("c1", "1.29.1"), mesh("c2", "1.28.2")], [service("c1"), service("c2")]);
    expect(status?.meshes?.["istiod-c1"]?.state).toBe("ACCEPTED");
    expect(status?.meshes?.["istiod-c2"]?.errors).toEqual([
      expect.stringContaining("runs Istio 1.28.2, and meshplane federates ambient meshes for Istio 1.29 and later"),
    ]);
  });

  it("keeps a VirtualMesh with a sidecar member on sidecar federation and says so on its ambient members", () => {
    const { plan, status } = federated([mesh("c1", "1.29.1"), mesh("c2", "1.29.1", false)], [service("c1"), service("c2")]);
    expect(plan.ambient.virtualMeshes.size).toBe(0);
    // Both also lack a sidecar east-west gateway, which sidecar federation reports as before.
    expect(status?.meshes?.["istiod-c1"]?.errors).toEqual(expect.arrayContaining([expect.stringContaining("mesh istiod-c2 (cluster c2) has not")]));
    expect(status?.meshes?.["istiod-c2"]?.errors).not.toEqual(expect.arrayContaining([expect.stringContaining("ambient")]));
  });

  it("reports ports that differ between clusters on each member when no majority tells which is right", () => {
    const { status } = federated([mesh("c1", "1.29.1"), mesh("c2", "1.29.1")], [service("c1"), service("c2", 8080)]);
    expect(status?.meshes?.["istiod-c1"]?.errors).toEqual([expect.stringContaining("has ports 9080, mesh istiod-c2 (cluster c2) has 8080")]);
    expect(status?.meshes?.["istiod-c2"]?.errors).toEqual([expect.stringContaining("has ports 8080, mesh istiod-c1 (cluster c1) has 9080")]);
  });

  it("refuses a selector naming meshes: a global service is global to every member", () => {
    const { status } = federated([mesh("c1", "1.29.1"), mesh("c2", "1.29.1")], [service("c1")], { meshes: [{ name: "istiod-c2" }] });
    expect(status?.errors).toEqual([expect.stringContaining("federation.selectors[0].meshes: ambient multicluster makes a service global")]);
  });

  describe("what Istio's multi-network ambient multicluster needs of each member", () => {
    it("accepts members with the flag on, each cluster on its own network", () => {
      expect(errorsOf([mesh("c1", "1.29.1"), mesh("c2", "1.29.1")])).toEqual({ "istiod-c1": ["ACCEPTED"], "istiod-c2": ["ACCEPTED"] });
    });

    it("refuses a member whose istiod runs without AMBIENT_ENABLE_MULTI_NETWORK=true, saying how to set it", () => {
      const errors = errorsOf([mesh("c1", "1.29.1"), mesh("c2", "1.29.1", true, { enabled: false, network: "net-c2" })]);
      expect(errors["istiod-c1"]).toEqual(["ACCEPTED"]);
      expect(errors["istiod-c2"]).toEqual([
        "INVALID",
        expect.stringMatching(
          /^mesh istiod-c2 \(cluster c2\) runs istiod without AMBIENT_ENABLE_MULTI_NETWORK=true .*--set values\.pilot\.env\.AMBIENT_ENABLE_MULTI_NETWORK=true\)$/,
        ),
      ]);
    });

    it("refuses a member without a network, saying which namespace to label", () => {
      const errors = errorsOf([mesh("c1", "1.29.1"), mesh("c2", "1.29.1", true, { enabled: true })]);
      expect(errors["istiod-c2"]).toEqual([
        "INVALID",
        expect.stringContaining(
          "its namespace istio-system has no topology.istio.io/network label, which is where Istio reads a cluster's network from: label it",
        ),
      ]);
    });

    it("refuses every member that shares its network with another cluster, naming the others", () => {
      const errors = errorsOf([
        mesh("c1", "1.29.1", true, { enabled: true, network: "shared" }),
        mesh("c2", "1.29.1", true, { enabled: true, network: "shared" }),
        mesh("c3", "1.29.1", true, { enabled: true, network: "shared" }),
        mesh("c4", "1.29.1"),
      ]);
      expect(errors["istiod-c4"]).toEqual(["ACCEPTED"]);
      expect(errors["istiod-c1"]).toEqual([
        "INVALID",
        expect.stringContaining("mesh istiod-c1 (cluster c1) is on network shared, as mesh istiod-c2 (cluster c2) and mesh istiod-c3 (cluster c3) are:"),
      ]);
      expect(errors["istiod-c3"]?.[1]).toContain("as mesh istiod-c1 (cluster c1) and mesh istiod-c2 (cluster c2) are");
    });

    it("says nothing of what discovery could not see: a report of an older agent, a flag from a ConfigMap or Secret", () => {
      expect(errorsOf([mesh("c1", "1.29.1", true, null), mesh("c2", "1.29.1", true, { enabled: "unknown", network: "net-c2" })])).toEqual({
        "istiod-c1": ["ACCEPTED"],
        "istiod-c2": ["ACCEPTED"],
      });
    });

    it("refuses members whose control planes run in namespaces of different names", () => {
      const errors = errorsOf([mesh("c1", "1.29.1"), mesh("c2", "1.29.1", true, undefined, "istio-ambient")]);
      for (const name of ["istiod-c1", "istiod-c2"]) {
        expect(errors[name]).toEqual([
          "INVALID",
          expect.stringContaining("control planes run in namespaces istio-ambient (istiod-c2) and istio-system (istiod-c1)"),
        ]);
      }
    });
  });

  describe("the east-west gateway of each member (docs/ambient.md#ambient-multicluster)", () => {
    it("generates Istio's east-west Gateway per member, labelled with its network, listing the global services it has", () => {
      const sink = new Collector();
      eastWestGatewayObjects(federated([mesh("c1", "1.29.1"), mesh("c2", "1.29.1")], [service("c1")]).plan.ambient.eastWestGateways, sink);
      expect(sink.objects.map((o) => o.cluster)).toEqual(["c1", "c2"]);
      expect(sink.objects[0]?.draft).toMatchObject({
        apiVersion: "gateway.networking.k8s.io/v1",
        kind: "Gateway",
        name: "istio-eastwestgateway",
        namespace: "istio-system",
        labels: { "topology.istio.io/network": "net-c1" },
        annotations: { [ANNOTATION_GLOBAL_SERVICES]: '["bookinfo/reviews"]' },
        parents: [{ kind: "VirtualMesh", name: "vm" }],
        spec: {
          gatewayClassName: "istio-east-west",
          listeners: [
            { name: "mesh", port: 15008, protocol: "HBONE", tls: { mode: "Terminate", options: { "gateway.istio.io/tls-terminate-mode": "ISTIO_MUTUAL" } } },
          ],
        },
      });
      expect(sink.objects[1]?.draft.annotations?.[ANNOTATION_GLOBAL_SERVICES]).toBe("[]");
    });

    it("generates none for a member its VirtualMesh refuses (Istio too old, the flag off, no network, a shared network)", () => {
      const services = ["c1", "c2", "c3", "c4", "c5", "c6"].map((c) => service(c));
      expect(
        gatewaysOf(
          [
            mesh("c1", "1.29.1"),
            mesh("c2", "1.28.0"),
            mesh("c3", "1.29.1", true, { enabled: false, network: "net-c3" }),
            mesh("c4", "1.29.1", true, { enabled: true }),
            mesh("c5", "1.29.1", true, { enabled: true, network: "shared" }),
            mesh("c6", "1.29.1", true, { enabled: true, network: "shared" }),
          ],
          services,
        ),
      ).toEqual(['c1 istio-system/istio-eastwestgateway net-c1 ["bookinfo/reviews"]']);
    });

    it("generates none where discovery cannot see the network, and one where only the flag is unknown", () => {
      expect(gatewaysOf([mesh("c1", "1.29.1", true, null), mesh("c2", "1.29.1", true, { enabled: "unknown", network: "net-c2" })], [])).toEqual([
        "c2 istio-system/istio-eastwestgateway net-c2 []",
      ]);
    });

    it("gives members whose control planes share a namespace of one cluster one gateway, listing the global services of both", () => {
      const [a, b] = [mesh("c1", "1.29.1"), mesh("c1", "1.29.1")].map((m, i) => ({ ...m, metadata: { ...m.metadata, name: `istiod-${i}` } })) as [Mesh, Mesh];
      const [vmA, vmB] = [virtualMesh([a]), { ...virtualMesh([b]), metadata: { ...virtualMesh([b]).metadata, name: "vm-b" } }];
      const planned = planEastWestGateways(
        [
          { mesh: a, virtualMesh: vmA },
          { mesh: b, virtualMesh: vmB },
        ],
        [
          { virtualMesh: vmA, namespace: "bookinfo", name: "reviews", destinations: [copyIn(a, "reviews")] },
          { virtualMesh: vmB, namespace: "bookinfo", name: "ratings", destinations: [copyIn(b, "ratings")] },
        ],
      );
      expect(planned).toEqual([
        {
          cluster: "c1",
          namespace: "istio-system",
          network: "net-c1",
          services: ["bookinfo/ratings", "bookinfo/reviews"],
          parents: [
            { kind: "VirtualMesh", name: "vm" },
            { kind: "VirtualMesh", name: "vm-b" },
          ],
        },
      ]);
    });

    it("reuses an east-west gateway the user made: generates none for that member", () => {
      const own = mesh("c2", "1.29.1");
      const ambient = own.spec.istio?.ambient;
      if (ambient !== undefined) ambient.eastWestGateways = [{ name: "my-eastwest", namespace: "istio-system", network: "net-c2" }];
      expect(gatewaysOf([mesh("c1", "1.29.1"), own], [service("c1"), service("c2")])).toEqual([
        'c1 istio-system/istio-eastwestgateway net-c1 ["bookinfo/reviews"]',
      ]);
    });
  });

  it.each<[string, string, unknown]>([
    [
      "a list of namespace/name",
      '["bookinfo/reviews","shop/cart-1"]',
      [
        { namespace: "bookinfo", name: "reviews" },
        { namespace: "shop", name: "cart-1" },
      ],
    ],
    ["an empty list", "[]", []],
    ["not JSON", "bookinfo/reviews", undefined],
    ["a name without its namespace", '["reviews"]', undefined],
    ["a Service name that is not a DNS-1035 label", '["bookinfo/1reviews"]', undefined],
    ["not a list", '{"bookinfo":"reviews"}', undefined],
  ])("parseGlobalServices reads %s", (_what, text, expected) => {
    expect(parseGlobalServices(text)).toEqual(expected);
  });
});
