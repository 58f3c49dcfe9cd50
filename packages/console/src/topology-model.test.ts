import type { PlacedObject, ResourceView } from "@meshplane/core/views";
import { describe, expect, it } from "vitest";
import { topology } from "./topology-model";

type MeshView = Parameters<typeof topology>[0][number];

const mesh = (name: string, cluster: string, trustDomain?: string): MeshView => ({
  metadata: { name, cluster },
  spec: trustDomain ? { istio: { trustDomain } } : {},
});
const EAST = mesh("istiod-east", "cluster-east", "east.local");
const WEST = mesh("istiod-west", "cluster-west", "west.local");
const CENTRAL = mesh("istiod-central", "cluster-central", "central.local");
const LONE = mesh("istiod-lone", "cluster-lone");

function virtualMesh(name: string, meshes: string[], spec: Record<string, unknown> = {}, status?: ResourceView["status"]): ResourceView {
  return { kind: "VirtualMesh", metadata: { name, generation: 1 }, spec: { meshes: meshes.map((m) => ({ name: m })), ...spec }, ...(status ? { status } : {}) };
}

/** The ServiceEntry a VirtualMesh writes into `cluster` for `hosts`. */
function serviceEntry(
  cluster: string,
  virtualMeshName: string,
  hosts: string[],
  endpoints: { address: string; ports?: Record<string, number> }[] = [{ address: "gw.example.com", ports: { http: 15443 } }],
): PlacedObject {
  return {
    cluster,
    object: {
      kind: "ServiceEntry",
      metadata: {
        name: hosts[0]?.split(".").slice(0, 2).join("-") ?? "none",
        namespace: "istio-system",
        annotations: { "meshplane.dev/parents": JSON.stringify([{ kind: "VirtualMesh", name: virtualMeshName }]) },
      },
      spec: { hosts, endpoints },
    },
  };
}

const GLOBAL = virtualMesh("global", ["istiod-east", "istiod-west", "istiod-central"]);

describe("topology", () => {
  it("lists every mesh by cluster with its trust domain, VirtualMesh, state and trust", () => {
    const global = virtualMesh(
      "global",
      ["istiod-east", "istiod-west", "istiod-central"],
      {},
      {
        state: "PENDING",
        meshes: { "istiod-east": { state: "ACCEPTED", trust: { state: "ISSUED" } }, "istiod-west": { state: "PENDING", trust: { state: "PENDING" } } },
      },
    );
    const policy: ResourceView = { kind: "TrafficPolicy", metadata: { name: "retries" }, spec: { meshes: [{ name: "istiod-lone" }] } };
    expect(topology([WEST, LONE, EAST, CENTRAL], [policy, global], []).nodes).toStrictEqual([
      { name: "istiod-central", cluster: "cluster-central", trustDomain: "central.local", virtualMesh: "global", state: "PENDING" },
      { name: "istiod-east", cluster: "cluster-east", trustDomain: "east.local", virtualMesh: "global", state: "ACCEPTED", trust: "ISSUED" },
      { name: "istiod-lone", cluster: "cluster-lone" },
      { name: "istiod-west", cluster: "cluster-west", trustDomain: "west.local", virtualMesh: "global", state: "PENDING", trust: "PENDING" },
    ]);
  });

  it("says PENDING for a member of a VirtualMesh without status", () => {
    expect(topology([EAST], [GLOBAL], []).nodes).toStrictEqual([
      { name: "istiod-east", cluster: "cluster-east", trustDomain: "east.local", virtualMesh: "global", state: "PENDING" },
    ]);
  });

  it("orders meshes by cluster, then name", () => {
    const canary = mesh("istiod-canary", "cluster-east");
    const first = mesh("z-first", "cluster-a");
    expect(topology([EAST, WEST, canary, first], [], []).nodes.map((n) => n.name)).toEqual(["z-first", "istiod-canary", "istiod-east", "istiod-west"]);
  });

  it("puts a mesh listed by two VirtualMeshes in the first", () => {
    const first = virtualMesh("first", ["istiod-east"], {}, { state: "ACCEPTED", meshes: { "istiod-east": { state: "ACCEPTED" } } });
    const second = virtualMesh(
      "second",
      ["istiod-east"],
      {},
      { state: "INVALID", meshes: { "istiod-east": { state: "INVALID", errors: ["mesh istiod-east already belongs to VirtualMesh first"] } } },
    );
    expect(topology([EAST], [first, second], []).nodes).toStrictEqual([
      { name: "istiod-east", cluster: "cluster-east", trustDomain: "east.local", virtualMesh: "first", state: "ACCEPTED" },
    ]);
  });

  it("aggregates the imported destinations per VirtualMesh, exporting and importing mesh, sorted, with each gateway once", () => {
    const objects = [
      serviceEntry(
        "cluster-west",
        "global",
        ["reviews.bookinfo.svc.cluster-east.global"],
        [{ address: "gw-east.example.com", ports: { http: 15443, grpc: 15443 } }],
      ),
      serviceEntry(
        "cluster-west",
        "global",
        ["details.bookinfo.svc.cluster-east.global"],
        [
          { address: "gw-east.example.com", ports: { http: 15443 } },
          { address: "10.0.0.9", ports: { http: 15443 } },
        ],
      ),
      serviceEntry("cluster-west", "global", ["api.shop.svc.cluster-east.global"], [{ address: "gw-east.example.com", ports: { http: 15443 } }]),
      serviceEntry("cluster-central", "global", ["reviews.bookinfo.svc.cluster-east.global"], [{ address: "gw-east.example.com", ports: { http: 15443 } }]),
      serviceEntry("cluster-east", "global", ["ratings.bookinfo.svc.cluster-west.global"], [{ address: "gw-west.example.com", ports: { http: 15443 } }]),
      // The exporting cluster's own entry for its service is its gateway's route in, not a link.
      serviceEntry("cluster-east", "global", ["reviews.bookinfo.svc.cluster-east.global"], [{ address: "10.1.2.3", ports: { http: 9080 } }]),
    ];
    expect(topology([EAST, WEST, CENTRAL], [GLOBAL], objects).links).toEqual([
      { virtualMesh: "global", from: "istiod-east", to: "istiod-central", destinations: ["bookinfo/reviews"], gateways: ["gw-east.example.com:15443"] },
      {
        virtualMesh: "global",
        from: "istiod-east",
        to: "istiod-west",
        destinations: ["bookinfo/details", "bookinfo/reviews", "shop/api"],
        gateways: ["gw-east.example.com:15443", "10.0.0.9:15443"],
      },
      { virtualMesh: "global", from: "istiod-west", to: "istiod-east", destinations: ["bookinfo/ratings"], gateways: ["gw-west.example.com:15443"] },
    ]);
  });

  it("reads only ServiceEntries the VirtualMesh wrote, for hosts of its suffix", () => {
    const internal = virtualMesh("internal", ["istiod-east", "istiod-west"], { federation: { hostnameSuffix: "mesh.internal" } });
    const notServiceEntry = serviceEntry("cluster-west", "internal", ["ratings.bookinfo.svc.cluster-east.mesh.internal"]);
    notServiceEntry.object.kind = "DestinationRule";
    const objects = [
      serviceEntry("cluster-west", "internal", ["reviews.bookinfo.svc.cluster-east.mesh.internal", "reviews.bookinfo.svc.cluster-east.global"]),
      serviceEntry("cluster-west", "internal", ["details.bookinfo.svc.cluster-east.global"]),
      serviceEntry("cluster-west", "other", ["api.shop.svc.cluster-east.mesh.internal"]),
      // A TrafficPolicy's object, named like the VirtualMesh.
      {
        cluster: "cluster-west",
        object: {
          kind: "ServiceEntry",
          metadata: { name: "by-policy", annotations: { "meshplane.dev/parents": JSON.stringify([{ kind: "TrafficPolicy", name: "internal" }]) } },
          spec: { hosts: ["cart.shop.svc.cluster-east.mesh.internal"] },
        },
      },
      // Another suffix of the same length.
      serviceEntry("cluster-west", "internal", ["orders.shop.svc.cluster-east.mesh.external"]),
      notServiceEntry,
      {
        cluster: "cluster-west",
        object: {
          kind: "ServiceEntry",
          metadata: { name: "malformed", annotations: { "meshplane.dev/parents": "[{" } },
          spec: { hosts: ["cart.shop.svc.cluster-east.mesh.internal"] },
        },
      },
      // Not `<svc>.<ns>.svc.<cluster>`: ignored.
      serviceEntry("cluster-west", "internal", [
        "reviews.bookinfo.pod.cluster-east.mesh.internal",
        "reviews.bookinfo.cluster-east.mesh.internal",
        "cluster-east.mesh.internal",
      ]),
    ];
    expect(topology([EAST, WEST], [internal], objects).links).toEqual([
      { virtualMesh: "internal", from: "istiod-east", to: "istiod-west", destinations: ["bookinfo/reviews"], gateways: ["gw.example.com:15443"] },
    ]);
  });

  it("keeps the links of different VirtualMeshes apart", () => {
    const a = virtualMesh("a", ["istiod-east", "istiod-west"]);
    const b = virtualMesh("b", ["istiod-central", "istiod-lone"], { federation: { hostnameSuffix: "b.example" } });
    const objects = [
      serviceEntry("cluster-west", "a", ["reviews.bookinfo.svc.cluster-east.global"]),
      serviceEntry("cluster-lone", "b", ["reviews.bookinfo.svc.cluster-central.b.example"]),
    ];
    expect(topology([EAST, WEST, CENTRAL, LONE], [a, b], objects).links).toEqual([
      { virtualMesh: "b", from: "istiod-central", to: "istiod-lone", destinations: ["bookinfo/reviews"], gateways: ["gw.example.com:15443"] },
      { virtualMesh: "a", from: "istiod-east", to: "istiod-west", destinations: ["bookinfo/reviews"], gateways: ["gw.example.com:15443"] },
    ]);
  });

  it("ignores clusters without a member mesh and meshes outside any VirtualMesh", () => {
    const objects = [
      // Exported from a cluster no member mesh is in, and imported into one.
      serviceEntry("cluster-west", "global", ["reviews.bookinfo.svc.cluster-gone.global"]),
      serviceEntry("cluster-gone", "global", ["reviews.bookinfo.svc.cluster-east.global"]),
      // A mesh the API lists but that is in no VirtualMesh.
      serviceEntry("cluster-lone", "global", ["reviews.bookinfo.svc.cluster-east.global"]),
    ];
    const result = topology([EAST, WEST, LONE], [GLOBAL], objects);
    expect(result.links).toEqual([]);
    expect(result.nodes.find((n) => n.name === "istiod-lone")).toStrictEqual({ name: "istiod-lone", cluster: "cluster-lone" });
  });

  it("draws nothing without meshes", () => {
    expect(topology([], [GLOBAL], [serviceEntry("cluster-west", "global", ["reviews.bookinfo.svc.cluster-east.global"])])).toEqual({ nodes: [], links: [] });
  });
});

const inNamespace = (name: string, cluster: string, namespace: string): MeshView => ({ metadata: { name, cluster }, spec: { namespace } });

/** West's import of east's reviews, in the Istio namespace `namespace`. */
function entry(namespace: string): PlacedObject {
  const e = serviceEntry("west", "global", ["reviews.bookinfo.svc.east.global"]);
  return { ...e, object: { ...e.object, metadata: { ...e.object.metadata, namespace } } };
}

describe("topology: membership and imports as the translator decides them", () => {
  it("puts a mesh in the VirtualMesh that holds it, not the first that names it", () => {
    const meshes = [mesh("m-east", "east"), mesh("m-west", "west")];
    const refused = virtualMesh(
      "a-new",
      ["m-east", "m-west"],
      {},
      { state: "INVALID", meshes: { "m-east": { state: "INVALID" }, "m-west": { state: "INVALID" } } },
    );
    const joined = virtualMesh(
      "b-old",
      ["m-east", "m-west"],
      {},
      { state: "ACCEPTED", meshes: { "m-east": { state: "ACCEPTED" }, "m-west": { state: "ACCEPTED" } } },
    );
    const t = topology(meshes, [refused, joined], [serviceEntry("west", "b-old", ["reviews.bookinfo.svc.east.global"])]);
    expect(t.nodes.map((n) => n.virtualMesh)).toEqual(["b-old", "b-old"]);
    expect(t.links).toEqual([{ virtualMesh: "b-old", from: "m-east", to: "m-west", destinations: ["bookinfo/reviews"], gateways: ["gw.example.com:15443"] }]);
  });

  it("gives each importing mesh of a cluster its own link, by the Istio namespace of the entry, counting a destination once", () => {
    const meshes = [inNamespace("m-east", "east", "istio-system"), inNamespace("m-west-a", "west", "istio-a"), inNamespace("m-west-b", "west", "istio-b")];
    const vm = virtualMesh("global", ["m-east", "m-west-a", "m-west-b"]);
    const t = topology(meshes, [vm], [entry("istio-a"), entry("istio-b"), entry("istio-b")]);
    expect(t.links.map((l) => [l.to, l.destinations])).toEqual([
      ["m-west-a", ["bookinfo/reviews"]],
      ["m-west-b", ["bookinfo/reviews"]],
    ]);
  });
});
