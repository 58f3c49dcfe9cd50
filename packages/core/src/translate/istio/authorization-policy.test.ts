import { describe, expect, it } from "vitest";
import type { Destination, Mesh } from "../../api/index";
import { buildModel } from "../input/model";
import {
  type AccessPolicy,
  authorizationPolicy,
  authorizationRule,
  waypointAuthorizationPolicy,
  waypointPrincipal,
  waypointRule,
} from "./authorization-policy";

const MESH = {
  kind: "Mesh",
  metadata: { name: "istiod-c1", cluster: "c1" },
  spec: {
    type: "istio",
    cluster: "c1",
    namespace: "istio-system",
    version: "1.26.0",
    istio: { trustDomain: "td.example", istiodServiceAccount: "istiod", smartDnsProxyingEnabled: true, gateways: [] },
  },
} satisfies Mesh;

const DESTINATION = {
  kind: "Destination",
  metadata: { name: "svc", cluster: "c1" },
  spec: {
    name: "svc",
    namespace: "ns",
    cluster: "c1",
    mesh: MESH.metadata.name,
    labels: {},
    selector: { app: "svc" },
    ports: [{ name: "http", port: 80, protocol: "TCP", targetPort: 8080 }],
    subsets: {},
    endpoints: [],
    workloads: [],
    waypoint: { name: "wp", namespace: "ns" },
  },
} satisfies Destination;

const model = buildModel({
  tenant: "t",
  clusters: ["c1"],
  meshes: [MESH],
  workloads: [],
  destinations: [DESTINATION],
  virtualMeshes: [],
  trafficPolicies: [],
  accessPolicies: [],
});
const policy = (name: string, spec: Partial<AccessPolicy["spec"]>) => ({ metadata: { name }, spec }) as AccessPolicy;
const sources = { principals: ["td.example/ns/ns/sa/client"], namespaces: [] };

describe("AuthorizationPolicies behind a waypoint (docs/ambient.md#accesspolicy)", () => {
  const p = policy("p", { allowedPaths: ["/b", "/a", "/a"], allowedMethods: ["GET"], allowedPorts: [80] });

  it("a waypoint rule keeps the Service's port, a pod rule takes the targetPort", () => {
    expect(waypointRule(p, sources)).toEqual({
      from: [{ source: { principals: ["td.example/ns/ns/sa/client"] } }],
      to: [{ operation: { paths: ["/a", "/b"], methods: ["GET"], ports: ["80"] } }],
    });
    expect(authorizationRule(p, DESTINATION, sources)).toMatchObject({ to: [{ operation: { ports: ["8080"] } }] });
    expect(waypointRule(p, { principals: [], namespaces: [] })).toBeUndefined();
  });

  it("the waypoint's policy is bound to the Service, in its namespace, one rule per accepted policy", () => {
    const draft = waypointAuthorizationPolicy(
      DESTINATION,
      [
        { policy: p, rule: waypointRule(p, sources) },
        { policy: policy("nobody", {}), rule: undefined },
      ],
      model,
    );
    expect(draft).toMatchObject({
      kind: "AuthorizationPolicy",
      name: "svc.waypoint",
      namespace: "ns",
      spec: { targetRefs: [{ group: "", kind: "Service", name: "svc" }], action: "ALLOW", rules: [waypointRule(p, sources)] },
      parents: [
        { kind: "AccessPolicy", name: "p" },
        { kind: "AccessPolicy", name: "nobody" },
      ],
    });
    expect(draft.spec).not.toHaveProperty("selector");
  });

  it("the pods admit the waypoint by the identity of its Gateway's ServiceAccount, before the policies' rules", () => {
    expect(waypointPrincipal(MESH, { name: "wp", namespace: "ns" })).toBe("td.example/ns/ns/sa/wp");
    const admit = { from: [{ source: { principals: ["td.example/ns/ns/sa/wp"] } }] };
    const draft = authorizationPolicy(DESTINATION, [{ policy: p, rule: undefined }], model, [admit]);
    expect(draft.spec).toEqual({ selector: { matchLabels: { app: "svc" } }, action: "ALLOW", rules: [admit] });
  });
});
