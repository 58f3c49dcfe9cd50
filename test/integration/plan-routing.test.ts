import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { discoveryOf, registeredAgent } from "../support/agents";
import { type ControlPlane, startControlPlane, trafficPolicy, virtualMesh } from "../support/control-plane";

// A migration's plan: POST /v1/plan with another output API per mesh (docs/api.md#plan-a-change,
// docs/ambient.md#migration), against DynamoDB Local and the SQS emulator.
const TENANT = "migrate";
const MESH = "istiod-istio--system-cluster-1";
const OLD = "istiod-istio--system-cluster-old";
const OSM = "osm--controller-osm--system-cluster-osm";
let cp: ControlPlane;
let admin: string;

type Obj = { kind: string; metadata: { name: string; namespace?: string } };
interface Plan {
  clusters: Record<string, { added: Obj[]; changed: Obj[]; removed: { kind: string; namespace?: string; name: string }[] }>;
  statuses: Record<
    string,
    {
      state: string;
      errors?: string[];
      destinations?: Record<string, { state: string; errors?: string[] }>;
      meshes?: Record<string, { state: string; errors?: string[] }>;
    }
  >;
  previousStatuses: Record<string, { state: string }>;
  routing?: Record<string, { cluster: string; from: string; to: string; state: string; errors?: string[] }>;
}

const onReviews = (name: string, policy: Record<string, unknown>) =>
  trafficPolicy(name, { destinationSelector: [{ kubeServiceRefs: { services: [{ cluster: "cluster-1", namespace: "bookinfo", name: "reviews" }] } }], policy });

async function plan(body: unknown): Promise<{ status: number; body: Plan & { errors?: { path: string; message: string }[] } }> {
  const res = await cp.request("POST", "/v1/plan", { token: admin, body });
  return { status: res.status, body: (await res.json()) as never };
}

/** What the tenant holds: its revision, its resources with their statuses, and each cluster's latest snapshot. */
async function stored() {
  const list = async (kind: string) => ((await (await cp.request("GET", `/v1/${kind}`, { token: admin })).json()) as { items: unknown[] }).items;
  const head = async (cluster: string) =>
    (await (await cp.request("GET", `/v1/clusters/${cluster}/snapshot?objects=false`, { token: admin })).json()) as unknown;
  return {
    revision: (await cp.store.tenants.get(TENANT)).revision,
    resources: [await list("virtualmeshes"), await list("trafficpolicies"), await list("accesspolicies")],
    heads: [await head("cluster-1"), await head("cluster-old")],
  };
}

beforeAll(async () => {
  cp = await startControlPlane();
  admin = await cp.tenant(TENANT);
  const sidecars = await registeredAgent(cp, admin, TENANT, "cluster-1");
  await sidecars.client.discovery(discoveryOf("istio-bookinfo", "cluster-1") as never);
  // The same Bookinfo on an Istio that cannot serve Gateway API routes.
  const old = discoveryOf("istio-bookinfo", "cluster-old");
  for (const m of old.meshes) m.spec.version = "1.23.4";
  await (await registeredAgent(cp, admin, TENANT, "cluster-old")).client.discovery(old as never);
  await (await registeredAgent(cp, admin, TENANT, "cluster-osm")).client.discovery(discoveryOf("osm-bookinfo", "cluster-osm") as never);
  const documents = [
    onReviews("reviews-timeout", { requestTimeout: "5s" }),
    onReviews("reviews-fault", { faultInjection: { abort: { httpStatus: 503 }, percentage: 10 } }),
  ];
  expect((await cp.request("POST", "/v1/apply", { token: admin, body: { documents } })).status).toBe(200);
  await cp.work();
  await cp.jobs();
});
afterAll(() => cp?.stop());

describe("a plan with routing", () => {
  it("shows, per cluster, VirtualServices removed, HTTPRoutes added, DestinationRules unchanged, and each policy's state before and after; stores and enqueues nothing", async () => {
    const before = await stored();
    const { status, body } = await plan({ routing: { [MESH]: "GATEWAY_API" } });
    expect(status).toBe(200);
    expect(body.routing).toEqual({ [MESH]: { cluster: "cluster-1", from: "ISTIO", to: "GATEWAY_API", state: "ACCEPTED" } });
    const c1 = body.clusters["cluster-1"];
    expect(c1?.removed).toEqual([{ apiVersion: "networking.istio.io/v1", kind: "VirtualService", namespace: "bookinfo", name: "reviews" }]);
    expect(c1?.added.map((o) => `${o.kind} ${o.metadata.namespace}/${o.metadata.name}`)).toEqual(["HTTPRoute bookinfo/reviews"]);
    expect(c1?.changed.filter((o) => o.kind === "DestinationRule")).toEqual([]);
    for (const other of ["cluster-old", "cluster-osm"]) expect(body.clusters[other]).toMatchObject({ added: [], changed: [], removed: [] });
    // Fault injection has no Gateway API form: INVALID, saying why; the timeout moves to the HTTPRoute.
    expect(body.statuses["TrafficPolicy/reviews-fault"]?.state).toBe("INVALID");
    expect(JSON.stringify(body.statuses["TrafficPolicy/reviews-fault"])).toMatch(/fault/i);
    expect(body.previousStatuses["TrafficPolicy/reviews-fault"]?.state).toBe("ACCEPTED");
    expect(body.statuses["TrafficPolicy/reviews-timeout"]?.state).toBe("ACCEPTED");
    expect(body.previousStatuses).not.toHaveProperty("TrafficPolicy/reviews-timeout");
    expect(await stored()).toEqual(before);
    expect(await cp.jobs()).toEqual([]);
  });

  it("keeps old requests working: documents alone, no routing in the answer", async () => {
    const { status, body } = await plan({ documents: [onReviews("reviews-timeout", { requestTimeout: "7s" })] });
    expect(status).toBe(200);
    expect(body).not.toHaveProperty("routing");
    expect(body.clusters["cluster-1"]?.changed.map((o) => o.kind)).toEqual(["VirtualService"]);
  });

  it("plans documents and routing together: the fix of what would be INVALID", async () => {
    const { body } = await plan({
      documents: [onReviews("reviews-fault", { requestTimeout: "2s" })],
      routing: { [MESH]: "GATEWAY_API" },
    });
    expect(body.statuses["TrafficPolicy/reviews-fault"]?.state).toBe("ACCEPTED");
    expect(body.previousStatuses).not.toHaveProperty("TrafficPolicy/reviews-fault");
  });

  it("says INVALID, as translation does, for an Istio that cannot serve GATEWAY_API, and on its VirtualMesh", async () => {
    const { status, body } = await plan({
      documents: [virtualMesh("old", { meshes: [{ name: OLD }], mtlsConfig: undefined })],
      routing: { [OLD]: "GATEWAY_API" },
    });
    expect(status).toBe(200);
    const reason = `the plan's routing GATEWAY_API: mesh ${OLD} runs Istio 1.23.4, and meshplane generates Gateway API routes for Istio 1.24 and later; upgrade Istio or plan ISTIO for ${OLD}`;
    expect(body.routing?.[OLD]).toEqual({ cluster: "cluster-old", from: "ISTIO", to: "ISTIO", state: "INVALID", errors: [reason] });
    expect(body.statuses["VirtualMesh/old"]?.meshes?.[OLD]).toEqual({ state: "INVALID", errors: [reason] });
    expect(body.clusters["cluster-old"]?.removed).toEqual([]);
  });

  it.each([
    [{ routing: { nope: "ISTIO" } }, "routing.nope", /no Istio mesh of a registered cluster is named nope/],
    [{ routing: { [OSM]: "GATEWAY_API" } }, `routing.${OSM}`, /only Istio meshes have an output API/],
    [{ routing: { [MESH]: "HTTPROUTE" } }, `routing.${MESH}`, /ISTIO|GATEWAY_API/],
    [{}, "documents", /unless routing names a mesh/],
    [{ routing: {} }, "documents", /unless routing names a mesh/],
  ])("refuses %j with a 400 naming the field", async (request, path, message) => {
    const before = await stored();
    const { status, body } = await plan(request);
    expect(status).toBe(400);
    expect(body.errors).toEqual([expect.objectContaining({ path, message: expect.stringMatching(message) })]);
    expect(await stored()).toEqual(before);
  });
});
