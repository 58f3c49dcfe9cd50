import { describe, expect, it } from "vitest";
import {
  type DestinationView,
  type PlacedObject,
  type ResourceStatusView,
  type ResourceView,
  describeDestination,
  generatedBy,
  parentsOf,
  reasonsOf,
} from "./describe";

const MESH = "istiod-istio--system-cluster-east";
const destination: DestinationView = {
  kind: "Destination",
  metadata: { name: "reviews-bookinfo-cluster-east", cluster: "cluster-east" },
  spec: {
    name: "reviews",
    namespace: "bookinfo",
    cluster: "cluster-east",
    mesh: MESH,
    ports: [{ port: 9080, protocol: "HTTP", name: "http" }],
    endpoints: [],
    workloads: [],
    subsets: {},
  },
};
const DEST = destination.metadata.name;

type Entry = NonNullable<ResourceStatusView["destinations"]>[string];

/** A TrafficPolicy or AccessPolicy whose status has `entry` for the destination (none: it does not select it). */
function policy(kind: string, name: string, entry: Entry | undefined, spec: Record<string, unknown> = {}): ResourceView {
  return {
    kind,
    metadata: { name, generation: 1 },
    spec,
    status: { state: entry?.state ?? "ACCEPTED", observedGeneration: 1, destinations: entry ? { [DEST]: entry } : {} },
  };
}

function virtualMesh(name: string, meshes: string[], spec: Record<string, unknown> = {}, state?: string): ResourceView {
  return {
    kind: "VirtualMesh",
    metadata: { name, generation: 1 },
    spec: { meshes: meshes.map((m) => ({ name: m })), ...spec },
    ...(state ? { status: { state, observedGeneration: 1 } } : {}),
  };
}

const parents = (...refs: { kind: string; name: string }[]) => ({ "meshplane.dev/parents": JSON.stringify(refs) });

function serviceEntry(cluster: string, hosts: string[], endpoints: { address: string; ports?: Record<string, number> }[], kind = "ServiceEntry"): PlacedObject {
  return {
    cluster,
    object: {
      kind,
      metadata: { name: "reviews-bookinfo-cluster-east", namespace: "istio-system", annotations: parents({ kind: "VirtualMesh", name: "global" }) },
      spec: { hosts, endpoints },
    },
  };
}

describe("parentsOf", () => {
  it("reads the parents annotation", () => {
    expect(
      parentsOf({
        kind: "ServiceEntry",
        metadata: { name: "se", annotations: parents({ kind: "VirtualMesh", name: "global" }, { kind: "TrafficPolicy", name: "retries" }) },
      }),
    ).toEqual([
      { kind: "VirtualMesh", name: "global" },
      { kind: "TrafficPolicy", name: "retries" },
    ]);
  });

  it.each<[string, Record<string, string> | undefined]>([
    ["no annotations", undefined],
    ["no parents annotation", { other: "x" }],
    ["malformed JSON", { "meshplane.dev/parents": '[{"kind":' }],
    ["a JSON object", { "meshplane.dev/parents": '{"kind":"VirtualMesh","name":"global"}' }],
    ["JSON null", { "meshplane.dev/parents": "null" }],
  ])("gives no parents for %s", (_what, annotations) => {
    expect(parentsOf({ kind: "ServiceEntry", metadata: { name: "se", ...(annotations ? { annotations } : {}) } })).toEqual([]);
  });
});

describe("generatedBy", () => {
  const objects: PlacedObject[] = [
    {
      cluster: "cluster-east",
      object: {
        kind: "VirtualService",
        metadata: { name: "reviews", namespace: "bookinfo", annotations: parents({ kind: "TrafficPolicy", name: "retries" }) },
      },
    },
    {
      cluster: "cluster-east",
      object: {
        kind: "AuthorizationPolicy",
        metadata: { name: "retries", namespace: "bookinfo", annotations: parents({ kind: "AccessPolicy", name: "retries" }) },
      },
    },
    {
      cluster: "cluster-west",
      object: {
        kind: "DestinationRule",
        metadata: { name: "reviews", annotations: parents({ kind: "VirtualMesh", name: "global" }, { kind: "TrafficPolicy", name: "retries" }) },
      },
    },
    { cluster: "cluster-west", object: { kind: "Sidecar", metadata: { name: "broken", annotations: { "meshplane.dev/parents": "not json" } } } },
  ];

  it("lists the objects naming the parent by kind and name, in order, without an absent namespace", () => {
    expect(generatedBy(objects, { kind: "TrafficPolicy", name: "retries" })).toStrictEqual([
      { cluster: "cluster-east", kind: "VirtualService", namespace: "bookinfo", name: "reviews" },
      { cluster: "cluster-west", kind: "DestinationRule", name: "reviews" },
    ]);
    expect(generatedBy(objects, { kind: "AccessPolicy", name: "retries" })).toStrictEqual([
      { cluster: "cluster-east", kind: "AuthorizationPolicy", namespace: "bookinfo", name: "retries" },
    ]);
    expect(generatedBy(objects, { kind: "TrafficPolicy", name: "timeouts" })).toEqual([]);
  });
});

describe("describeDestination", () => {
  it("orders the policies by acceptance order, then those without one by kind and name, leaving out the rest", () => {
    const resources = [
      policy("TrafficPolicy", "c-invalid", { state: "INVALID", errors: ["conflicts with retries on requestTimeout"] }, { policy: { requestTimeout: "2s" } }),
      policy("TrafficPolicy", "second", { state: "ACCEPTED", acceptanceOrder: 2 }, { policy: { retries: { attempts: 3 } } }),
      policy("TrafficPolicy", "elsewhere", undefined, { policy: { retries: { attempts: 1 } } }),
      policy("TrafficPolicy", "b-pending", { state: "PENDING" }),
      policy(
        "TrafficPolicy",
        "first",
        { state: "ACCEPTED", acceptanceOrder: 1 },
        { policy: { trafficShift: { destinations: [] }, faultInjection: { abort: { httpStatus: 503 } } } },
      ),
      { kind: "TrafficPolicy", metadata: { name: "no-status" }, spec: { policy: { mtls: {} } } },
    ];
    expect(describeDestination(destination, resources, []).policies).toStrictEqual([
      { kind: "TrafficPolicy", name: "first", state: "ACCEPTED", acceptanceOrder: 1, errors: [], fields: ["trafficShift", "faultInjection"] },
      { kind: "TrafficPolicy", name: "second", state: "ACCEPTED", acceptanceOrder: 2, errors: [], fields: ["retries"] },
      { kind: "TrafficPolicy", name: "b-pending", state: "PENDING", errors: [], fields: [] },
      { kind: "TrafficPolicy", name: "c-invalid", state: "INVALID", errors: ["conflicts with retries on requestTimeout"], fields: ["requestTimeout"] },
    ]);
  });

  it("sorts a high acceptance order numerically, before the policies without one", () => {
    const resources = [
      policy("TrafficPolicy", "a", { state: "INVALID" }),
      policy("TrafficPolicy", "b", { state: "ACCEPTED", acceptanceOrder: 10 }),
      policy("TrafficPolicy", "c", { state: "ACCEPTED", acceptanceOrder: 9 }),
    ];
    expect(describeDestination(destination, resources, []).policies.map((p) => p.name)).toEqual(["c", "b", "a"]);
  });

  it("does not reorder the resources it is given", () => {
    const resources = [
      policy("TrafficPolicy", "b", { state: "ACCEPTED", acceptanceOrder: 2 }),
      policy("TrafficPolicy", "a", { state: "ACCEPTED", acceptanceOrder: 1 }),
    ];
    describeDestination(destination, resources, []);
    expect(resources.map((r) => r.metadata.name)).toEqual(["b", "a"]);
  });

  it("lists AccessPolicies as access grants with their sources and only the limits they set", () => {
    const sources = [{ kubeServiceAccountRefs: { serviceAccounts: [{ namespace: "bookinfo", name: "productpage" }] } }];
    const resources = [
      policy(
        "AccessPolicy",
        "limited",
        { state: "ACCEPTED" },
        {
          sourceSelector: sources,
          destinationSelector: [{ kubeServiceRefs: { services: [] } }],
          allowedPaths: ["/reviews/*"],
          allowedMethods: ["GET"],
          allowedPorts: [9080],
        },
      ),
      policy("AccessPolicy", "any-source", { state: "INVALID", errors: ["no such port 1"] }, { allowedMethods: ["GET", "HEAD"] }),
      policy("AccessPolicy", "not-this-one", undefined, { allowedPorts: [80] }),
    ];
    const view = describeDestination(destination, resources, []);
    expect(view.policies).toEqual([]);
    expect(view.access).toStrictEqual([
      { name: "any-source", state: "INVALID", errors: ["no such port 1"], sources: undefined, limits: { allowedMethods: ["GET", "HEAD"] } },
      { name: "limited", state: "ACCEPTED", errors: [], sources, limits: { allowedPaths: ["/reviews/*"], allowedMethods: ["GET"], allowedPorts: [9080] } },
    ]);
  });

  it("is enforced only by the VirtualMesh its mesh belongs to, when that one has globalAccessPolicy ENABLED", () => {
    const holding = (name: string, spec: Record<string, unknown>, meshState: string): ResourceView => ({
      ...virtualMesh(name, [MESH], spec, "ACCEPTED"),
      status: { state: "ACCEPTED", observedGeneration: 1, meshes: { [MESH]: { state: meshState } } },
    });
    const resources = [
      // Named first, but refused for the mesh: the mesh already belongs to "holder".
      holding("a-refused", { globalAccessPolicy: "ENABLED" }, "INVALID"),
      holding("holder", { globalAccessPolicy: "ENABLED" }, "ACCEPTED"),
      virtualMesh("other-meshes", ["istiod-istio--system-cluster-west"], { globalAccessPolicy: "ENABLED" }, "ACCEPTED"),
    ];
    const view = describeDestination(destination, resources, []);
    expect(view.enforcedBy).toEqual(["holder"]);
    expect(view.virtualMeshes).toEqual([{ name: "holder", state: "ACCEPTED" }]);
    // The VirtualMesh that holds the mesh allows every caller: a refused one's ENABLED does not apply.
    const open = describeDestination(
      destination,
      [holding("a-refused", { globalAccessPolicy: "ENABLED" }, "INVALID"), holding("holder", { globalAccessPolicy: "DISABLED" }, "ACCEPTED")],
      [],
    );
    expect(open.enforcedBy).toEqual([]);
    // Without statuses yet, the older one holds it, then the first by name — as the translator decides.
    const fresh = describeDestination(destination, [virtualMesh("b", [MESH], { globalAccessPolicy: "ENABLED" }), virtualMesh("a", [MESH])], []);
    expect(fresh.virtualMeshes).toEqual([{ name: "a", state: "PENDING" }]);
  });

  it("is in no VirtualMesh and federated nowhere without a mesh", () => {
    const { mesh: _mesh, ...spec } = destination.spec;
    const view = describeDestination(
      { ...destination, spec },
      [virtualMesh("global", [MESH], { globalAccessPolicy: "ENABLED" })],
      [serviceEntry("cluster-west", ["reviews.bookinfo.svc.cluster-east.global"], [{ address: "gw.example.com", ports: { http: 15443 } }])],
    );
    expect(view).toEqual({ policies: [], enforcedBy: [], access: [], virtualMeshes: [], federation: [], generated: [] });
  });

  it("is federated from the other clusters that import its VirtualMesh host, through de-duplicated gateways", () => {
    const host = "reviews.bookinfo.svc.cluster-east.global";
    const objects = [
      serviceEntry(
        "cluster-west",
        ["other.example.com", host],
        [
          { address: "gw.example.com", ports: { http: 15443, grpc: 15443 } },
          { address: "10.0.0.7", ports: { http: 15443 } },
          { address: "gw.example.com", ports: { tcp: 15443 } },
        ],
      ),
      serviceEntry("cluster-central", [host], [{ address: "gw.example.com", ports: { http: 15443 } }, { address: "no-ports.example.com" }]),
      // The exporting cluster's own entry is its gateway's route in, not an import.
      serviceEntry("cluster-east", [host], [{ address: "10.1.2.3", ports: { http: 9080 } }]),
      // Another destination, another VirtualMesh's suffix, and a kind that is not a ServiceEntry.
      serviceEntry("cluster-west", ["ratings.bookinfo.svc.cluster-east.global"], [{ address: "gw.example.com", ports: { http: 15443 } }]),
      serviceEntry("cluster-west", ["reviews.bookinfo.svc.cluster-east.other"], [{ address: "gw.example.com", ports: { http: 15443 } }]),
      serviceEntry("cluster-north", [host], [{ address: "gw.example.com", ports: { http: 15443 } }], "DestinationRule"),
    ];
    expect(describeDestination(destination, [virtualMesh("global", [MESH])], objects).federation).toEqual([
      { cluster: "cluster-central", host, gateways: ["gw.example.com:15443"] },
      { cluster: "cluster-west", host, gateways: ["gw.example.com:15443", "10.0.0.7:15443"] },
    ]);
  });

  it("uses the VirtualMesh's hostnameSuffix and only the hosts of VirtualMeshes that include its mesh", () => {
    const objects = [
      serviceEntry("cluster-west", ["reviews.bookinfo.svc.cluster-east.mesh.internal"], [{ address: "gw.example.com", ports: { http: 15443 } }]),
      serviceEntry("cluster-central", ["reviews.bookinfo.svc.cluster-east.global"], [{ address: "gw.example.com", ports: { http: 15443 } }]),
      serviceEntry("cluster-north", ["reviews.bookinfo.svc.cluster-east.elsewhere"], [{ address: "gw.example.com", ports: { http: 15443 } }]),
    ];
    const resources = [
      virtualMesh("internal", [MESH], { federation: { hostnameSuffix: "mesh.internal" } }),
      virtualMesh("not-ours", ["istiod-istio--system-cluster-west"], { federation: { hostnameSuffix: "elsewhere" } }),
    ];
    expect(describeDestination(destination, resources, objects).federation).toEqual([
      { cluster: "cluster-west", host: "reviews.bookinfo.svc.cluster-east.mesh.internal", gateways: ["gw.example.com:15443"] },
    ]);
  });

  it("lists the objects generated for the destination itself", () => {
    const objects: PlacedObject[] = [
      {
        cluster: "cluster-east",
        object: { kind: "DestinationRule", metadata: { name: "reviews", namespace: "bookinfo", annotations: parents({ kind: "Destination", name: DEST }) } },
      },
      {
        cluster: "cluster-east",
        object: { kind: "VirtualService", metadata: { name: "reviews", namespace: "bookinfo", annotations: parents({ kind: "TrafficPolicy", name: DEST }) } },
      },
      {
        cluster: "cluster-west",
        object: {
          kind: "DestinationRule",
          metadata: { name: "ratings", namespace: "bookinfo", annotations: parents({ kind: "Destination", name: "ratings-bookinfo-cluster-east" }) },
        },
      },
    ];
    expect(describeDestination(destination, [], objects).generated).toEqual([
      { cluster: "cluster-east", kind: "DestinationRule", namespace: "bookinfo", name: "reviews" },
    ]);
  });
});

describe("reasonsOf", () => {
  it("gives nothing without a status or reasons", () => {
    expect(reasonsOf(undefined)).toEqual([]);
    expect(reasonsOf({ destinations: { [DEST]: {} }, meshes: { [MESH]: { trust: {} } }, clusters: { "cluster-east": {} } })).toEqual([]);
  });

  it("prefixes each reason with the destination, mesh (and its trust) or cluster it is about", () => {
    const status: ResourceStatusView = {
      state: "INVALID",
      errors: ["spec.meshes[1]: mesh not found"],
      destinations: {
        [DEST]: { state: "INVALID", errors: ["conflicts with TrafficPolicy/first on retries"] },
        "ratings-bookinfo-cluster-east": { state: "ACCEPTED" },
      },
      meshes: {
        [MESH]: { state: "FAILED", errors: ["no east-west gateway"], trust: { state: "FAILED", errors: ["intermediate CA refused", "key too short"] } },
        "istiod-istio--system-cluster-west": { state: "PENDING", trust: { state: "PENDING", errors: ["waiting for the agent's CSR"] } },
      },
      clusters: {
        "cluster-west": { generation: 4, applied: false, errors: ["ServiceEntry istio-system/reviews: forbidden"] },
        "cluster-east": { generation: 4, applied: true },
      },
    };
    expect(reasonsOf(status)).toEqual([
      "spec.meshes[1]: mesh not found",
      `destination ${DEST}: conflicts with TrafficPolicy/first on retries`,
      `mesh ${MESH}: no east-west gateway`,
      `mesh ${MESH} trust: intermediate CA refused`,
      `mesh ${MESH} trust: key too short`,
      "mesh istiod-istio--system-cluster-west trust: waiting for the agent's CSR",
      "cluster cluster-west: ServiceEntry istio-system/reviews: forbidden",
    ]);
  });
});

describe("parentsOf on a malformed annotation", () => {
  it("keeps only well-formed parents", () => {
    const object = {
      kind: "ServiceEntry",
      metadata: { name: "x", annotations: { "meshplane.dev/parents": '[null, 3, {"kind":"VirtualMesh"}, {"kind":"VirtualMesh","name":"global"}]' } },
    };
    expect(parentsOf(object)).toEqual([{ kind: "VirtualMesh", name: "global" }]);
    expect(
      generatedBy([{ cluster: "east", object: { ...object, metadata: { ...object.metadata, annotations: { "meshplane.dev/parents": "[null]" } } } }], {
        kind: "VirtualMesh",
        name: "global",
      }),
    ).toEqual([]);
  });
});
