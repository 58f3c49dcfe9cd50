import { describe, expect, it } from "vitest";
import type { DataPlaneMode, Destination, Mesh, Workload } from "../../api/index";
import { buildModel } from "../input/model";
import type { AccessPolicy } from "./authorization-policy";
import { accessDataPlaneErrors, callerDataPlaneErrors, offSidecarCallers } from "./data-planes";

const MESH: Mesh = {
  kind: "Mesh",
  metadata: { name: "istiod-c1", cluster: "c1" },
  spec: {
    type: "istio",
    cluster: "c1",
    namespace: "istio-system",
    version: "1.24.1",
    istio: { trustDomain: "cluster.local", istiodServiceAccount: "istiod", smartDnsProxyingEnabled: true, gateways: [] },
  },
};

function workload(name: string, dataPlane: DataPlaneMode, waypoint?: string): Workload {
  return {
    kind: "Workload",
    metadata: { name, cluster: "c1" },
    spec: {
      kind: "Deployment",
      name,
      namespace: "ns",
      cluster: "c1",
      mesh: MESH.metadata.name,
      labels: { app: "svc" },
      serviceAccount: name,
      dataPlane,
      ...(waypoint ? { waypoint: { name: waypoint, namespace: "ns" } } : {}),
    },
  };
}

function destination(workloads: readonly Workload[], dataPlane: NonNullable<Destination["spec"]["dataPlane"]>): Destination {
  return {
    kind: "Destination",
    metadata: { name: "svc", cluster: "c1" },
    spec: {
      name: "svc",
      namespace: "ns",
      cluster: "c1",
      mesh: MESH.metadata.name,
      labels: {},
      selector: { app: "svc" },
      ports: [{ name: "http", port: 80, protocol: "TCP" }],
      subsets: {},
      endpoints: [],
      workloads: workloads.map((w) => w.metadata.name),
      dataPlane,
    },
  };
}

function modelOf(workloads: Workload[], d: Destination) {
  return buildModel({
    tenant: "t",
    clusters: ["c1"],
    meshes: [MESH],
    workloads,
    destinations: [d],
    virtualMeshes: [],
    trafficPolicies: [],
    accessPolicies: [],
  });
}

function accessPolicy(spec: Partial<AccessPolicy["spec"]>): AccessPolicy {
  return { spec } as AccessPolicy;
}

const REACH = new Set([MESH.metadata.name]);
const identities = { principals: ["cluster.local/ns/ns/sa/client"], namespaces: [] };
const anyPeer = { principals: ["*", "cluster.local/ns/ns/sa/client"], namespaces: [] };

describe("what sidecar-style objects can promise in Istio's ambient data plane", () => {
  it("refuses an AccessPolicy on a mixed service whose pods are partly outside the mesh", () => {
    const workloads = [workload("v1", "sidecar"), workload("v2", "none")];
    const d = destination(workloads, "mixed");
    expect(accessDataPlaneErrors(accessPolicy({}), identities, d, REACH, modelOf(workloads, d))).toEqual([
      expect.stringContaining("pods of this service are outside the mesh"),
    ]);
  });

  it("refuses identities, paths or methods where a workload's own waypoint takes calls addressed to its pods, except a policy admitting any authenticated peer", () => {
    const workloads = [workload("v1", "sidecar"), workload("v2", "ambient", "wp")];
    const d = destination(workloads, "mixed");
    const model = modelOf(workloads, d);
    expect(accessDataPlaneErrors(accessPolicy({}), identities, d, REACH, model)).toEqual([
      expect.stringContaining("addressed to pods of this service go through waypoint ns/wp"),
    ]);
    expect(accessDataPlaneErrors(accessPolicy({ allowedPorts: [80] }), anyPeer, d, REACH, model)).toEqual([]);
    expect(accessDataPlaneErrors(accessPolicy({ allowedMethods: ["GET"] }), anyPeer, d, REACH, model)).toEqual([
      expect.stringContaining("cannot see methods"),
      expect.stringContaining("or check methods"),
    ]);
  });

  it("accepts identities, paths and methods on ambient pods behind the service's waypoint, which enforces them", () => {
    const workloads = [workload("v1", "ambient")];
    const d = { ...destination(workloads, "ambient"), spec: { ...destination(workloads, "ambient").spec, waypoint: { name: "wp", namespace: "ns" } } };
    const model = modelOf(workloads, d);
    expect(accessDataPlaneErrors(accessPolicy({ allowedPaths: ["/a"], allowedMethods: ["GET"] }), identities, d, REACH, model)).toEqual([]);
  });

  it("refuses paths or methods behind the service's waypoint for the sidecar callers it admits, which pass no waypoint to ambient pods", () => {
    const pods = [workload("v1", "ambient")];
    const callers = ["s1", "s2", "s3", "s4"].map((n) => workload(n, "sidecar"));
    const plain = destination(pods, "ambient");
    const d = { ...plain, spec: { ...plain.spec, waypoint: { name: "wp", namespace: "ns" } } };
    const model = modelOf([...pods, ...callers, workload("amb", "ambient")], d);
    const paths = accessPolicy({ allowedPaths: ["/a"], allowedMethods: ["GET"] });
    expect(accessDataPlaneErrors(paths, { principals: ["*"], namespaces: [] }, d, REACH, model)).toEqual([
      expect.stringMatching(/^sidecar workloads s1, s2, s3 and 1 more can call this service: .*keeps no rule on paths or methods.*narrow the sourceSelector/),
    ]);
    const named = accessPolicy({ sourceSelector: [{ kubeIdentityMatcher: { namespaces: ["ns"] } }], allowedPaths: ["/a"] });
    expect(accessDataPlaneErrors(named, { principals: ["cluster.local/ns/ns/sa/s2"], namespaces: [] }, d, REACH, model)).toEqual([
      expect.stringMatching(/^sourceSelector names sidecar workloads s2: .*or drop paths and rely on identities and ports/),
    ]);
    expect(accessDataPlaneErrors(named, { principals: ["cluster.local/ns/ns/sa/s*"], namespaces: [] }, d, REACH, model)).toEqual([
      expect.stringContaining("sidecar workloads s1, s2, s3 and 1 more"),
    ]);
    expect(accessDataPlaneErrors(named, { principals: [], namespaces: ["ns"] }, d, REACH, model)).toEqual([expect.stringContaining("s1, s2, s3 and 1 more")]);
    // Ambient callers only, another trust domain, meshes that cannot call it, or no paths or methods: nothing refused.
    expect(accessDataPlaneErrors(named, { principals: ["cluster.local/ns/ns/sa/amb"], namespaces: [] }, d, REACH, model)).toEqual([]);
    expect(accessDataPlaneErrors(named, { principals: ["other.td/ns/ns/sa/s1"], namespaces: [] }, d, REACH, model)).toEqual([]);
    expect(accessDataPlaneErrors(paths, { principals: ["*"], namespaces: [] }, d, new Set(["another-mesh"]), model)).toEqual([]);
    expect(accessDataPlaneErrors(accessPolicy({}), { principals: ["*"], namespaces: [] }, d, REACH, model)).toEqual([]);
  });

  it("keeps paths and methods for sidecar callers where every pod behind the waypoint runs a sidecar, which checks them", () => {
    const pods = [workload("v1", "sidecar")];
    const plain = destination(pods, "sidecar");
    const d = { ...plain, spec: { ...plain.spec, waypoint: { name: "wp", namespace: "ns" } } };
    const model = modelOf([...pods, workload("s1", "sidecar")], d);
    expect(accessDataPlaneErrors(accessPolicy({ allowedPaths: ["/a"] }), { principals: ["*"], namespaces: [] }, d, REACH, model)).toEqual([]);
  });

  it("asks for a waypoint for paths or methods on ambient pods without one", () => {
    const workloads = [workload("v1", "ambient")];
    const d = destination(workloads, "ambient");
    expect(accessDataPlaneErrors(accessPolicy({ allowedPaths: ["/a"] }), identities, d, REACH, modelOf(workloads, d))).toEqual([
      expect.stringMatching(/cannot see paths.*create one for this service \(a Gateway of class istio-waypoint, and the label istio.io\/use-waypoint/),
    ]);
  });

  it("refuses a waypoint-bound policy on an Istio older than 1.22", () => {
    const workloads = [workload("v1", "ambient")];
    const d = { ...destination(workloads, "ambient"), spec: { ...destination(workloads, "ambient").spec, waypoint: { name: "wp", namespace: "ns" } } };
    const old = { ...MESH, spec: { ...MESH.spec, version: "1.21.3" } };
    const model = buildModel({
      tenant: "t",
      clusters: ["c1"],
      meshes: [old],
      workloads,
      destinations: [d],
      virtualMeshes: [],
      trafficPolicies: [],
      accessPolicies: [],
    });
    expect(accessDataPlaneErrors(accessPolicy({}), identities, d, REACH, model)).toEqual([
      expect.stringContaining("Istio supports from 1.22; mesh istiod-c1 runs Istio 1.21.3"),
    ]);
  });

  it("names ambient callers of the meshes that reach the destination only, three of them and a count", () => {
    const workloads = ["a", "b", "c", "d"].map((n) => workload(n, "ambient"));
    const d = destination([], "sidecar");
    const model = modelOf(workloads, d);
    expect(callerDataPlaneErrors(d, new Set([MESH.metadata.name]), undefined, model, "ISTIO")).toEqual([
      expect.stringMatching(/^workloads a, b, c and 1 more in Istio's ambient data plane can call this service: ztunnel/),
    ]);
    expect(callerDataPlaneErrors(d, new Set(["another-mesh"]), undefined, model, "ISTIO")).toEqual([]);
    const picked = offSidecarCallers([workload("s", "sidecar"), workload("out", "none")]);
    expect(callerDataPlaneErrors(d, new Set([MESH.metadata.name]), picked, model, "ISTIO")).toEqual([
      expect.stringMatching(/^sourceSelector picks workloads out outside the mesh/),
    ]);
  });

  it("lets ambient callers through a waypoint under Gateway API output, and asks for a waypoint without one", () => {
    const workloads = [workload("a", "ambient")];
    const reaching = new Set([MESH.metadata.name]);
    const bare = destination([], "ambient");
    expect(callerDataPlaneErrors(bare, reaching, undefined, modelOf(workloads, bare), "GATEWAY_API")).toEqual([
      expect.stringMatching(/create a waypoint for this service .*, or let meshplane create and bind one \(routing\.waypoints ON_DEMAND/),
    ]);
    const behind = { ...bare, spec: { ...bare.spec, waypoint: { namespace: "ns", name: "wp" } } };
    expect(callerDataPlaneErrors(behind, reaching, undefined, modelOf(workloads, behind), "GATEWAY_API")).toEqual([]);
    expect(callerDataPlaneErrors(behind, reaching, undefined, modelOf(workloads, behind), "ISTIO")).toEqual([
      expect.stringContaining("set routing.api GATEWAY_API"),
    ]);
  });
});
