/**
 * Ambient multicluster as Istio's own code sees it across two clusters
 * (docs/ambient.md#ambient-multicluster): istiod of cluster-1, with a remote secret for cluster-2 and
 * AMBIENT_ENABLE_MULTI_NETWORK on, reads meshplane's translation of the ambient-federation golden
 * case (plus a service of cluster-2 its VirtualMesh does not federate), each cluster as the agent
 * will leave it: the east-west gateways meshplane generates, the Istio namespaces labelled with the
 * networks discovery reports, and `istio.io/global` on the Services each east-west gateway lists.
 * The last tests take one piece away each and show the view without it.
 */
import { parseAllDocuments } from "yaml";
import { describe, expect, it } from "vitest";
import { translate } from "../../packages/core/src/translate/index";
import { buildInput } from "../golden/tenant";
import { type AmbientMulticlusterInput, ambientMulticlusterWorld, globalServicesOf, type WorldOmissions } from "./ambient-multicluster-world";
import { goldenDescription } from "./features-support";
import { type Envoy, judgeAmbientMulticluster } from "./judge";

const REVIEWS = "bookinfo/reviews.bookinfo.svc.cluster.local";
const EAST_WEST_2 = "cluster-2/istio-system/istio-eastwestgateway";

/** The golden case, with backoffice/details in cluster-2: ambient, outside the federation's selectors. */
function description(): ReturnType<typeof goldenDescription> {
  const d = goldenDescription("ambient-federation");
  const cluster2 = d.clusters["cluster-2"];
  if (cluster2 === undefined) throw new Error("the golden case has no cluster-2");
  cluster2.workloads = [...(cluster2.workloads ?? []), { name: "details-v1", namespace: "backoffice", labels: { app: "details" }, dataPlane: "ambient" }];
  cluster2.services = [...(cluster2.services ?? []), { name: "details", namespace: "backoffice" }];
  return d;
}

const input = buildInput(description());
const output = translate(input);

function view(omit: WorldOmissions = {}) {
  const world = ambientMulticlusterWorld(input, output, "cluster-1", ["cluster-2"], omit);
  return { world, judged: judgeAmbientMulticluster(world) };
}

/** An address as ztunnel is told it (proto3 JSON bytes: base64), dotted. */
function ip(bytes: unknown): string {
  return [...Buffer.from(String(bytes), "base64")].join(".");
}

function services(addresses: readonly Envoy[]): Envoy[] {
  return addresses.flatMap((a) => (a.service === undefined ? [] : [a.service as Envoy]));
}

function workloads(addresses: readonly Envoy[]): Envoy[] {
  return addresses.flatMap((a) => (a.workload === undefined ? [] : [a.workload as Envoy]));
}

/** The service's addresses as `<network>/<ip>`. */
function vips(addresses: readonly Envoy[], name: string): string[] {
  const service = services(addresses).find((s) => s.namespace === "bookinfo" && s.name === name);
  return ((service?.addresses ?? []) as Envoy[]).map((a) => `${String(a.network ?? "")}/${ip(a.address)}`);
}

/** The workloads that serve `service` (`<namespace>/<hostname>`). */
function servingWorkloads(addresses: readonly Envoy[], service: string): Envoy[] {
  return workloads(addresses).filter((w) => Object.keys((w.services ?? {}) as Envoy).includes(service));
}

type Kube = { kind: string; metadata: { name: string; namespace?: string }; spec?: { clusterIP?: string }; status?: { podIP?: string } };

function kubeOf(kubernetes: string): Kube[] {
  return parseAllDocuments(kubernetes).map((d) => d.toJS() as Kube);
}

function clusterIp(kubernetes: string, namespace: string, name: string): string | undefined {
  return kubeOf(kubernetes).find((o) => o.kind === "Service" && o.metadata.namespace === namespace && o.metadata.name === name)?.spec?.clusterIP;
}

function podIps(kubernetes: string): string[] {
  return kubeOf(kubernetes).flatMap((o) => (o.kind === "Pod" && o.status?.podIP !== undefined ? [o.status.podIP] : []));
}

function remote(world: AmbientMulticlusterInput): string {
  const r = world.remotes[0];
  if (r === undefined) throw new Error("no remote cluster");
  return r.kubernetes;
}

describe("ambient multicluster in Istio's code: cluster-1's istiod with a remote secret for cluster-2", () => {
  const { world, judged } = view();
  const addresses = judged.ztunnel.addresses;

  it("is given what meshplane generates: an east-west gateway per cluster on its network, listing the global services", () => {
    for (const [cluster, network] of [
      ["cluster-1", "network-1"],
      ["cluster-2", "network-2"],
    ] as const) {
      const gateway = output.clusters[cluster]?.objects.find((o) => o.kind === "Gateway" && o.metadata.name === "istio-eastwestgateway");
      expect(gateway?.metadata.labels).toMatchObject({ "topology.istio.io/network": network });
      expect(gateway?.spec).toMatchObject({ gatewayClassName: "istio-east-west" });
    }
    expect([...globalServicesOf(output, "cluster-2")]).toEqual(["bookinfo/ratings", "bookinfo/reviews"]);
    expect(judged.validation.filter((v) => v.error !== undefined)).toEqual([]);
    expect(judged.enrolled["cluster-2"]).toContainEqual(expect.stringMatching(/^backoffice\/details-v1/));
  });

  it("tells ztunnel the global service's addresses in both clusters, each on its own network", () => {
    const vip1 = clusterIp(world.local.kubernetes, "bookinfo", "reviews");
    const vip2 = clusterIp(remote(world), "bookinfo", "reviews");
    expect(vips(addresses, "reviews").sort()).toEqual([`network-1/${vip1}`, `network-2/${vip2}`]);
  });

  it("reaches the global service's endpoints in cluster-2 through cluster-2's east-west gateway, never directly", () => {
    const gatewayIp = judged.eastWestGateways[EAST_WEST_2];
    expect(gatewayIp).toBeDefined();
    const serving = servingWorkloads(addresses, REVIEWS);
    const local = serving.filter((w) => w.network === "network-1");
    expect(local.map((w) => ((w.addresses ?? []) as unknown[]).map(ip))).toEqual([["10.1.0.2"]]);
    const remoteOnes = serving.filter((w) => w.network === "network-2");
    expect(remoteOnes).toHaveLength(1);
    const [split] = remoteOnes as [Envoy];
    expect(split).toMatchObject({ clusterId: "cluster-2", capacity: 1, networkGateway: { hboneMtlsPort: 15008, address: { network: "network-2" } } });
    expect(ip((split.networkGateway as { address: Envoy }).address.address)).toBe(gatewayIp);
    expect(split.addresses ?? []).toEqual([]);
    // No pod of cluster-2 is ztunnel's to dial: every workload address it is told is cluster-1's.
    const told = workloads(addresses).flatMap((w) => ((w.addresses ?? []) as unknown[]).map(ip));
    expect(told.filter((a) => podIps(remote(world)).includes(a))).toEqual([]);
    // The service admits cluster-2's identity, which the tunnel through the gateway presents.
    const reviews = services(addresses).find((s) => s.name === "reviews");
    expect(reviews?.subjectAltNames).toContain("spiffe://cluster.local/ns/bookinfo/sa/reviews-v2");
  });

  it("keeps the global service on cluster-1's own waypoint", () => {
    const reviews = services(addresses).find((s) => s.name === "reviews");
    expect(JSON.stringify(reviews?.waypoint)).toContain("waypoint.bookinfo.svc.cluster.local");
  });

  it("does not show cluster-2's service that is not global: no service, no workload", () => {
    expect(globalServicesOf(output, "cluster-2").has("backoffice/details")).toBe(false);
    expect(JSON.stringify(addresses)).not.toContain("backoffice");
    expect(JSON.stringify(addresses)).not.toContain("details");
  });

  it("without istio.io/global on the Services, cluster-1 sees none of cluster-2's reviews", () => {
    const { judged: without } = view({ globalLabel: true });
    expect(vips(without.ztunnel.addresses, "reviews")).toEqual([`network-1/${clusterIp(world.local.kubernetes, "bookinfo", "reviews")}`]);
    expect(servingWorkloads(without.ztunnel.addresses, REVIEWS).map((w) => w.clusterId)).toEqual(["cluster-1"]);
  });

  it("without the network label on the Istio namespaces, cluster-2's pods are dialled directly, past the gateway", () => {
    const { world: w, judged: without } = view({ networkLabel: true });
    const serving = servingWorkloads(without.ztunnel.addresses, REVIEWS);
    expect(serving.filter((x) => x.networkGateway !== undefined)).toEqual([]);
    const remotePods = podIps(remote(w));
    expect(serving.some((x) => ((x.addresses ?? []) as unknown[]).map(ip).some((a) => remotePods.includes(a)))).toBe(true);
  });

  it("without the network label on meshplane's east-west gateways, cluster-2's endpoints are unreachable", () => {
    const { judged: without } = view({ gatewayNetworkLabel: true });
    expect(servingWorkloads(without.ztunnel.addresses, REVIEWS).map((w) => w.clusterId)).toEqual(["cluster-1"]);
    expect(workloads(without.ztunnel.addresses).filter((w) => w.networkGateway !== undefined)).toEqual([]);
  });
});
