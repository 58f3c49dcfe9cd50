import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ClusterObjects, type DiscoveryProblem, type DiscoveryResult, discover, discoveryResult } from "@meshplane/core";
import { describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { loadCluster } from "./load-cluster";

const FIXTURES = join(import.meta.dirname, "fixtures");

/** Each fixture is one cluster as an agent lists it; `.expected.yaml` is the reviewed answer. */
const CASES = [
  { fixture: "istio-bookinfo", cluster: "cluster-east" },
  { fixture: "osm-bookinfo", cluster: "cluster-osm" },
  { fixture: "istio-revision-eastwest", cluster: "cluster-west" },
  { fixture: "istio-ambient", cluster: "cluster-ambient" },
] as const;

function run(input: ClusterObjects): { result: DiscoveryResult; problems: DiscoveryProblem[] } {
  const problems: DiscoveryProblem[] = [];
  return { result: discover(input, { report: (p) => problems.push(p) }), problems };
}

/** Every list of `input` reversed: an agent may list objects in any order. */
function reversed(input: ClusterObjects): ClusterObjects {
  return {
    cluster: input.cluster,
    deployments: input.deployments.toReversed(),
    statefulSets: input.statefulSets.toReversed(),
    daemonSets: input.daemonSets.toReversed(),
    replicaSets: input.replicaSets.toReversed(),
    pods: input.pods.toReversed(),
    services: input.services.toReversed(),
    endpoints: input.endpoints?.toReversed(),
    endpointSlices: input.endpointSlices?.toReversed(),
    configMaps: input.configMaps.toReversed(),
    nodes: input.nodes.toReversed(),
    namespaces: input.namespaces?.toReversed(),
    gateways: input.gateways?.toReversed(),
  };
}

describe.each(CASES)("discovery of $fixture", ({ fixture, cluster }) => {
  const input = loadCluster(join(FIXTURES, `${fixture}.yaml`), cluster);
  const { result, problems } = run(input);

  it("returns exactly the reviewed result", () => {
    // UPDATE_GOLDEN=1 rewrites the expected file below its header comment; review every diff by eye.
    const path = join(FIXTURES, `${fixture}.expected.yaml`);
    if (process.env.UPDATE_GOLDEN === "1") {
      const header = /^(?:#.*\n)*/.exec(readFileSync(path, "utf8"))?.[0] ?? "";
      writeFileSync(path, header + stringify(result));
    }
    expect(result).toEqual(parse(readFileSync(path, "utf8")));
  });

  it("is accepted by the control plane's schema and reports no problem", () => {
    expect(discoveryResult.safeParse(result).error).toBeUndefined();
    expect(problems).toEqual([]);
  });

  it("serialises to the same bytes whatever order the lists come in", () => {
    expect(JSON.stringify(run(reversed(input)).result)).toBe(JSON.stringify(result));
  });
});

describe("Bookinfo on Istio (cluster-east)", () => {
  const input = loadCluster(join(FIXTURES, "istio-bookinfo.yaml"), "cluster-east");
  const { result } = run(input);
  const destination = (name: string) => result.destinations.find((d) => d.spec.name === name);

  it("finds one default-revision mesh whose only mesh gateway is the east-west one, reached by hostname", () => {
    expect(result.meshes.map((m) => [m.metadata.name, m.spec.istio?.revision, m.spec.istio?.trustDomain])).toEqual([
      ["istiod-istio--system-cluster-east", undefined, "cluster.local"],
    ]);
    expect(result.meshes[0]?.spec.istio?.gateways.map((g) => [g.kind, g.name, g.externalPort, g.addresses])).toEqual([
      ["eastwest", "istio-eastwestgateway", 15443, [{ hostname: "k8s-istiosys-istioeas-5e1f2a3b4c-0123456789abcdef.elb.eu-west-1.amazonaws.com" }]],
    ]);
  });

  it("makes reviews v1/v2/v3 one destination with a version subset", () => {
    expect(destination("reviews")?.spec.subsets).toEqual({ version: ["v1", "v2", "v3"] });
    expect(destination("reviews")?.spec.endpoints.map((e) => [e.ip, e.zone, e.subZone])).toEqual([
      ["10.10.1.71", "eu-west-1a", undefined],
      ["10.10.2.72", "eu-west-1b", undefined],
      ["10.10.3.73", "eu-west-1c", "rack-3"],
    ]);
  });

  it("keeps ratings-v2, scaled to zero in the injection-labelled namespace, as a workload and a subset", () => {
    expect(result.workloads.map((w) => w.spec.name)).toContain("ratings-v2");
    expect(destination("ratings")?.spec.subsets).toEqual({ version: ["v1", "v2"] });
  });

  it("drops ratings-v2 when the namespace labels are not known", () => {
    const withoutNamespaces = run({ ...input, namespaces: undefined }).result;
    expect(withoutNamespaces.workloads.map((w) => w.spec.name)).not.toContain("ratings-v2");
  });

  it("leaves out services without workloads unless annotated, and everything outside the mesh", () => {
    expect(result.destinations.map((d) => d.spec.name)).toEqual([
      "details",
      "istio-eastwestgateway",
      "istio-ingressgateway",
      "legacy-billing",
      "productpage",
      "ratings",
      "reviews",
    ]);
    expect(destination("legacy-billing")?.spec).toMatchObject({
      workloads: [],
      mesh: "istiod-istio--system-cluster-east",
      endpoints: [{ ip: "192.168.40.12", labels: {} }],
    });
  });

  it("stops discovering legacy-billing once its annotation is removed", () => {
    const services = input.services.map((s) => (s.metadata.name === "legacy-billing" ? { ...s, metadata: { ...s.metadata, annotations: {} } } : s));
    expect(run({ ...input, services }).result.destinations.map((d) => d.spec.name)).not.toContain("legacy-billing");
  });
});

describe("Bookinfo on OSM (cluster-osm)", () => {
  const { result } = run(loadCluster(join(FIXTURES, "osm-bookinfo.yaml"), "cluster-osm"));

  it("finds the OSM mesh from osm-controller only, and puts every Bookinfo workload in it", () => {
    expect(result.meshes.map((m) => [m.metadata.name, m.spec.type, m.spec.version])).toEqual([["osm--controller-osm--system-cluster-osm", "osm", "1.2.4"]]);
    expect(new Set(result.workloads.map((w) => w.spec.mesh))).toEqual(new Set(["osm--controller-osm--system-cluster-osm"]));
    expect(result.workloads).toHaveLength(6);
  });

  it("reads endpoints from core/v1 Endpoints with the zone of each pod's node", () => {
    const reviews = result.destinations.find((d) => d.spec.name === "reviews");
    expect(reviews?.spec.subsets).toEqual({ version: ["v1", "v2", "v3"] });
    expect(reviews?.spec.endpoints.map((e) => [e.ip, e.zone, e.labels.version])).toEqual([
      ["10.244.0.41", "westeurope-1", "v1"],
      ["10.244.0.43", "westeurope-1", "v3"],
      ["10.244.1.42", "westeurope-2", "v2"],
    ]);
  });
});

describe("revisioned Istio with a NodePort east-west gateway (cluster-west)", () => {
  const { result } = run(loadCluster(join(FIXTURES, "istio-revision-eastwest.yaml"), "cluster-west"));
  const mesh = result.meshes[0];

  it("reads revision, trust domain and DNS proxying from istiod-1-24 and ConfigMap istio-1-24", () => {
    expect(result.meshes).toHaveLength(1);
    expect(mesh?.spec.istio).toMatchObject({
      revision: "1-24",
      trustDomain: "west.example.com",
      istiodServiceAccount: "istiod-1-24",
      smartDnsProxyingEnabled: true,
    });
  });

  it("reaches the gateway on its nodePort at each gateway node's ExternalIP, else InternalIP", () => {
    expect(mesh?.spec.istio?.gateways.map((g) => [g.tlsPortName, g.externalPort, g.containerPort, g.addresses])).toEqual([
      ["tls", 31443, 15443, [{ ip: "10.138.0.13" }, { ip: "34.82.10.12" }]],
    ]);
  });

  it("puts every workload, including the scaled-to-zero batch job, in the 1-24 mesh", () => {
    expect(result.workloads.map((w) => [w.spec.kind, w.spec.name, w.spec.mesh])).toEqual([
      ["Deployment", "istio-eastwestgateway", mesh?.metadata.name],
      ["StatefulSet", "ledger", mesh?.metadata.name],
      ["Deployment", "payments-api", mesh?.metadata.name],
      ["Deployment", "payments-batch", mesh?.metadata.name],
    ]);
  });
});

const dataPlanes = (r: DiscoveryResult) => r.workloads.map((w) => [w.spec.name, w.spec.dataPlane, w.spec.waypoint?.name]);

describe("Istio's ambient data plane (cluster-ambient)", () => {
  const input = loadCluster(join(FIXTURES, "istio-ambient.yaml"), "cluster-ambient");
  const { result } = run(input);

  it("reads ztunnel and both waypoints on the mesh", () => {
    expect(result.meshes[0]?.spec.istio?.ambient?.ztunnel).toEqual({ namespace: "istio-system", version: "1.25.2" });
    expect(result.meshes[0]?.spec.istio?.waypoints?.map((w) => `${w.namespace}/${w.name} ${w.for}`)).toEqual([
      "shop/pods-waypoint workload",
      "shop/waypoint service",
    ]);
  });

  it("reads istiod's AMBIENT_ENABLE_MULTI_NETWORK and its namespace's network, and no other variable of istiod", () => {
    expect(result.meshes[0]?.spec.istio?.ambient?.multiNetwork).toEqual({ enabled: true, network: "network-ambient" });
    const report = JSON.stringify(result);
    for (const hidden of ["s3cr3t-token-never-reported", "EXTERNAL_CA_TOKEN", "istiod-remote", "PILOT_ENABLE_AMBIENT"]) expect(report).not.toContain(hidden);
  });

  it("makes the sidecar-less pods of the ambient namespace mesh workloads, but not the one opting out", () => {
    expect(dataPlanes(result)).toEqual([
      ["orders", "sidecar", undefined],
      ["payments", "ambient", "pods-waypoint"],
      ["web", "ambient", undefined],
    ]);
  });

  it("binds web's Service to its waypoint, and not payments' to a waypoint for workloads", () => {
    expect(result.destinations.map((d) => [d.spec.name, d.spec.dataPlane, d.spec.waypoint?.name])).toEqual([
      ["orders", "sidecar", undefined],
      ["payments", "ambient", undefined],
      ["web", "ambient", "waypoint"],
    ]);
  });

  it("sees no ambient workload without ztunnel, and no waypoint without the Gateway API", () => {
    const withoutZtunnel = run({ ...input, daemonSets: [] }).result;
    expect(withoutZtunnel.meshes[0]?.spec.istio?.ambient).toBeUndefined();
    expect(dataPlanes(withoutZtunnel)).toEqual([["orders", "sidecar", undefined]]);
    const withoutGateways = run({ ...input, gateways: undefined }).result;
    expect(withoutGateways.meshes[0]?.spec.istio?.waypoints).toBeUndefined();
    expect(withoutGateways.destinations.find((d) => d.spec.name === "web")?.spec.waypoint).toBeUndefined();
  });

  it("sees no ambient data plane on an Istio older than 1.24", () => {
    const old = input.deployments.map((d) =>
      d.metadata.name === "istiod"
        ? { ...d, spec: { ...d.spec, template: { ...d.spec.template, spec: { containers: [{ name: "discovery", image: "docker.io/istio/pilot:1.23.4" }] } } } }
        : d,
    );
    const { meshes, workloads } = run({ ...input, deployments: old }).result;
    expect([meshes[0]?.spec.istio?.ambient, meshes[0]?.spec.istio?.waypoints, workloads.map((w) => w.spec.name)]).toEqual([undefined, undefined, ["orders"]]);
  });
});
