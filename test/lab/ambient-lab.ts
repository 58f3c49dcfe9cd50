/**
 * `npm run lab -- --ambient`: the lab's two clusters on Istio's ambient data plane (ambient-fixture.ts),
 * each with its agent under the chart's RBAC, a VirtualMesh over both and the policies of
 * ambient-policies.yaml. No istiod runs in the lab, so the lab programs the waypoints itself.
 */
import { readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseAllDocuments } from "yaml";
import { type LabAgent, eventually, startLabAgent } from "../e2e/lab-agents";
import { FIXTURES } from "../support/agents";
import type { ControlPlane } from "../support/control-plane";
import { bindWaypoint, istioOf, namespaceOf, readFixture, toAmbient, trustDomainAlias, waypoint, writeFixture, ztunnel } from "./ambient-fixture";
import type { LabCluster } from "./cluster";

export const AMBIENT_POLICIES = join(import.meta.dirname, "ambient-policies.yaml");
export const AMBIENT_MESHES = ["istiod-istio--system-cluster-east", "istiod--1--24-istio--system-cluster-west"];

/** A user resource as the API answers it, with the parts of its status the lab reads (docs/resources.md#status). */
export interface Resource {
  kind: string;
  metadata: { name: string };
  status?: { state: string; observedGeneration?: number; clusters?: Record<string, { applied: boolean }> };
}

/**
 * The two ambient clusters' fixtures, written to temp files: cluster-east is the default lab's Bookinfo
 * (Istio 1.24.2, trust domain cluster.local) with namespace bookinfo on ambient; cluster-west is the
 * default lab's revisioned Istio (1-24, west.example.com) whose payments namespace stays on sidecars,
 * plus the same Bookinfo on ambient — a mesh with both data planes. Each runs ztunnel and a waypoint
 * bound to the Service reviews, and accepts the other's trust domain (a VirtualMesh over meshes that
 * do not is `INVALID`, saying which alias to add: `npm run lab -- --shared-trust` shows that step).
 */
export function ambientFixtures(): Record<"cluster-east" | "cluster-west", string> {
  const bookinfo = readFixture(join(FIXTURES, "istio-bookinfo.yaml"));
  const payments = readFixture(join(FIXTURES, "istio-revision-eastwest.yaml"));
  const westNodes = payments.filter((o) => o.kind === "Node").map((o) => o.metadata.name);
  const ambient = (objects: typeof bookinfo, alias: string) => {
    const istio = istioOf(objects);
    const moved = [...toAmbient(trustDomainAlias(objects, istio, alias), ["bookinfo"]), ztunnel(istio), waypoint("bookinfo", istio)];
    return bindWaypoint(moved, "bookinfo", "reviews");
  };
  return {
    "cluster-east": writeFixture("cluster-east", ambient(bookinfo, "west.example.com")),
    "cluster-west": writeFixture("cluster-west", ambient([...payments, ...namespaceOf(bookinfo, "bookinfo", westNodes)], "cluster.local")),
  };
}

type Gateway = { metadata: { name: string; namespace: string }; spec: { gatewayClassName: string }; status?: { addresses?: unknown[] } };

/**
 * Does for each unprogrammed `istio-waypoint` Gateway of `cluster` what istiod's deployment controller
 * would (no istiod runs in the lab): creates its Service (HBONE on 15008) and writes the Gateway's
 * `status` — the Service's cluster IP and host name as addresses, `Accepted` and `Programmed`.
 * Discovery takes a waypoint only once it has addresses (docs/ambient.md#what-discovery-sees).
 * Returns the Gateways programmed as `namespace/name`; throws with the apiserver's message.
 */
export async function programWaypoints(cluster: LabCluster): Promise<string[]> {
  const gateways = (await cluster.request<{ items: Gateway[] }>("GET", "/apis/gateway.networking.k8s.io/v1/gateways")).body.items;
  const programmed: string[] = [];
  for (const gw of gateways.filter((g) => g.spec.gatewayClassName === "istio-waypoint" && !g.status?.addresses?.length)) {
    const { name, namespace } = gw.metadata;
    const labels = { "gateway.networking.k8s.io/gateway-name": name, "gateway.istio.io/managed": "istio.io-mesh-controller" };
    const service = await cluster.request<{ spec: { clusterIP: string }; message?: string }>("POST", `/api/v1/namespaces/${namespace}/services`, {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name, namespace, labels },
      spec: {
        selector: { "gateway.networking.k8s.io/gateway-name": name },
        ports: [
          { name: "status-port", port: 15021, protocol: "TCP" },
          { name: "mesh", port: 15008, protocol: "TCP", appProtocol: "hbone" },
        ],
      },
    });
    if (!service.ok) throw new Error(`waypoint Service ${namespace}/${name}: ${service.status} ${service.body.message ?? ""}`);
    const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
    const condition = (type: string) => ({ type, status: "True", reason: type, message: "Resource programmed by the lab", lastTransitionTime: now });
    const status = {
      addresses: [
        { type: "IPAddress", value: service.body.spec.clusterIP },
        { type: "Hostname", value: `${name}.${namespace}.svc.cluster.local` },
      ],
      conditions: [condition("Accepted"), condition("Programmed")],
    };
    const put = await cluster.request<{ message?: string }>("PUT", `/apis/gateway.networking.k8s.io/v1/namespaces/${namespace}/gateways/${name}/status`, {
      ...gw,
      status,
    });
    if (!put.ok) throw new Error(`waypoint status ${namespace}/${name}: ${put.status} ${put.body.message ?? ""}`);
    programmed.push(`${namespace}/${name}`);
  }
  return programmed;
}

/**
 * Starts both ambient clusters with their agents registered in `admin`'s tenant, programs their
 * waypoints, and waits until the control plane shows both meshes with ztunnel and a waypoint in
 * front of reviews. Stop the returned agents (which stop their clusters) when done.
 */
export async function startAmbientLab(cp: ControlPlane, admin: string): Promise<LabAgent[]> {
  const fixtures = ambientFixtures();
  const agents = await Promise.all(Object.entries(fixtures).map(([name, fixture]) => startLabAgent(cp, admin, name, fixture))).finally(() => {
    for (const fixture of Object.values(fixtures)) rmSync(dirname(fixture), { recursive: true, force: true });
  });
  for (const agent of agents) await programWaypoints(agent.cluster);
  const list = async (path: string) =>
    ((await (await cp.request("GET", path, { token: admin })).json()) as { items: { spec: Record<string, unknown> }[] }).items;
  await eventually(
    "both meshes on ambient with reviews behind its waypoint",
    async () => {
      const ztunnels = (await list("/v1/meshes")).filter((m) => (m.spec.istio as { ambient?: unknown } | undefined)?.ambient).length;
      const bound = (await list("/v1/destinations?namespace=bookinfo")).filter((d) => d.spec.name === "reviews" && d.spec.waypoint).length;
      return ztunnels === 2 && bound === 2 ? true : undefined;
    },
    120_000,
  );
  return agents;
}

/** Applies ambient-policies.yaml in `admin`'s tenant, all or nothing (`POST /v1/apply`); throws with the API's answer on a refusal. */
export async function applyAmbientPolicies(cp: ControlPlane, admin: string): Promise<Resource[]> {
  const documents = parseAllDocuments(readFileSync(AMBIENT_POLICIES, "utf8")).map((d) => d.toJS() as Resource);
  const res = await cp.request("POST", "/v1/apply", { token: admin, body: { documents } });
  if (!res.ok) throw new Error(`apply ${AMBIENT_POLICIES}: ${res.status} ${await res.text()}`);
  return documents;
}

const PLURAL: Record<string, string> = { VirtualMesh: "virtualmeshes", TrafficPolicy: "trafficpolicies", AccessPolicy: "accesspolicies" };

/**
 * `resources` as the API shows them once settled: each translated (a state other than `PENDING`)
 * and applied by the agent of every cluster its status lists. Throws after `ms` without that.
 */
export async function settledStatuses(cp: ControlPlane, admin: string, resources: Resource[], ms = 120_000): Promise<Resource[]> {
  return eventually(
    "every policy translated and applied in its clusters",
    async () => {
      const got = await Promise.all(
        resources.map(async (r) => (await (await cp.request("GET", `/v1/${PLURAL[r.kind]}/${r.metadata.name}`, { token: admin })).json()) as Resource),
      );
      const settled = got.every((r) => r.status && r.status.state !== "PENDING" && Object.values(r.status.clusters ?? {}).every((c) => c.applied));
      return settled ? got : undefined;
    },
    ms,
  );
}
