/**
 * The metrics API's reads (docs/api.md#golden-signals) against the real parts: DynamoDB Local, and
 * the metrics queue and bucket on the SQS/S3 emulator with the ingest function's handler writing what
 * an agent's reports bring. A destination's series with the change an agent's status report recorded
 * and the error burst after it, the graph a page at a time, the impact list, bounds refused naming the
 * parameter, and one tenant's metrics never shown to another.
 */
import type { DestinationMetrics, GraphView, ImpactList } from "@meshplane/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { discoveryOf, registeredAgent } from "../support/agents";
import type { ControlPlane } from "../support/control-plane";
import { type Flow, type MetricsPlane, bookinfoEdge, flowReports, recordChange, seedMetrics, startMetrics } from "../support/metrics-seed";

const MINUTE = 60;

let plane: MetricsPlane;
let cp: ControlPlane;
let acme: string;
let other: string;
let reviews: string;

const get = async <T>(path: string, token = acme) => {
  const res = await cp.request("GET", path, { token });
  return { status: res.status, body: (await res.json()) as T };
};

beforeAll(async () => {
  plane = await startMetrics();
  cp = plane.cp;
  acme = await cp.tenant("acme");
  other = await cp.tenant("other");
  // The change lands 21 minutes ago: the control plane's clock is set back while it is made.
  const now = Math.floor(Date.now() / 1000 / MINUTE) * MINUTE;
  const changed = now - 21 * MINUTE;
  cp.clock.now = new Date((changed + 5) * 1000);
  const east = await registeredAgent(cp, acme, "acme", "cluster-east");
  await east.client.discovery(discoveryOf("istio-bookinfo", "cluster-east"));
  await recordChange(cp, acme, { tenant: "acme", cluster: "cluster-east", client: east.client });
  cp.clock.now = new Date();
  // Traffic into reviews from 30 minutes before the change to 20 after, errors in half of it after,
  // sent as the agent sends it: reports of at most 15 minutes, through the metrics queue into the bucket.
  const minutes = Array.from({ length: 50 }, (_, i) => changed + (i - 30) * MINUTE);
  const flows: Flow[] = [
    { edge: bookinfoEdge("east-1", "productpage-v1", "east-1", "reviews"), requests: 20, failures: (start) => (start >= changed ? 10 : 0), bucket: 4 },
    { edge: bookinfoEdge("east-1", "ratings-v1", "east-1", "reviews"), requests: 2, failures: () => 0, bucket: 4 },
  ];
  for (const report of flowReports("cluster-east", "east-1", flows, minutes))
    await seedMetrics(plane.target, { tenant: "acme", cluster: "cluster-east", key: east.key }, report);
  const list = await get<{ items: { metadata: { name: string }; spec: { name: string } }[] }>("/v1/destinations?namespace=bookinfo");
  reviews = list.body.items.find((d) => d.spec.name === "reviews")?.metadata.name as string;
}, 120_000);
afterAll(async () => {
  await plane?.stop();
});

describe("a destination's series", () => {
  it("shows the traffic into it, the change that reached its cluster and the error burst after it", async () => {
    const { status, body } = await get<DestinationMetrics>(`/v1/destinations/${reviews}/metrics?window=1h&step=5m`);
    expect(status).toBe(200);
    expect(body.points).toHaveLength(12);
    expect(body.total.requests).toBe(50 * 22);
    expect(body.markers).toMatchObject([{ kind: "TrafficPolicy", name: "reviews-timeout", version: 1, cluster: "cluster-east", generation: 2 }]);
    expect(body.impacts).toMatchObject([{ destination: reviews, signal: "errorRatio", change: { name: "reviews-timeout" } }]);
    expect(body.impacts[0]?.message).toContain("TrafficPolicy reviews-timeout version 1 on cluster-east");
  });

  it("is a 404 for a name the tenant has no Destination of, and for another tenant's", async () => {
    expect((await get(`/v1/destinations/nothing-here/metrics`)).status).toBe(404);
    expect((await get(`/v1/destinations/${reviews}/metrics`, other)).status).toBe(404);
  });
});

describe("the graph", () => {
  it("answers a page of edges at a time with the nodes they reference", async () => {
    const first = await get<GraphView>("/v1/graph?window=1h&limit=1");
    expect(first.status).toBe(200);
    expect(first.body.edges).toHaveLength(1);
    const token = first.body.metadata.continue as string;
    const second = await get<GraphView>(`/v1/graph?window=1h&limit=1&continue=${token}`);
    expect(second.body.edges).toHaveLength(1);
    expect(second.body.metadata.continue).toBeUndefined();
    expect([...first.body.edges, ...second.body.edges].map((e) => e.source)).toEqual([
      "w:cluster-east/bookinfo/productpage-v1",
      "w:cluster-east/bookinfo/ratings-v1",
    ]);
    expect(first.body.nodes.find((n) => n.kind === "destination")).toMatchObject({
      cluster: "cluster-east",
      resource: reviews,
      signals: { requests: 50 * 22 },
    });
  });

  it("shows another tenant none of it, and refuses a continue token across tenants", async () => {
    const theirs = await get<GraphView>("/v1/graph?window=1h", other);
    expect(theirs.body.edges).toEqual([]);
    const token = (await get<GraphView>("/v1/graph?window=1h&limit=1")).body.metadata.continue as string;
    expect((await get(`/v1/graph?window=1h&limit=1&continue=${token}`, other)).status).toBe(400);
  });
});

describe("the impact list", () => {
  it("names the change that hurt the destination; another tenant's is empty", async () => {
    const { body } = await get<ImpactList>("/v1/metrics/impacts?window=1h");
    expect(body.impacts.map((i) => [i.destination, i.change.name, i.signal])).toEqual([[reviews, "reviews-timeout", "errorRatio"]]);
    expect((await get<ImpactList>("/v1/metrics/impacts?window=1h", other)).body.impacts).toEqual([]);
  });
});

/** The status of a request and the parameters its problem names. */
const named = async (path: string) => {
  const res = await cp.request("GET", path, { token: acme });
  return { status: res.status, paths: ((await res.json()) as { errors?: { path: string }[] }).errors?.map((e) => e.path) };
};

describe("bounds", () => {
  it("are a 400 naming the parameter, never a 500", async () => {
    expect(await named(`/v1/destinations/${reviews}/metrics?window=abc`)).toEqual({ status: 400, paths: ["query.window"] });
    expect(await named(`/v1/destinations/${reviews}/metrics?window=31d`)).toEqual({ status: 400, paths: ["query.window"] });
    expect(await named(`/v1/destinations/${reviews}/metrics?window=1h&step=7m`)).toEqual({ status: 400, paths: ["query.step"] });
    expect(await named(`/v1/destinations/${reviews}/metrics?window=3d&step=1m`)).toEqual({ status: 400, paths: ["query.step"] });
    expect(await named("/v1/graph?window=25h")).toEqual({ status: 400, paths: ["query.window"] });
    expect(await named("/v1/graph?limit=1001")).toEqual({ status: 400, paths: ["query.limit"] });
    expect(await named("/v1/graph?continue=bm90LW91cnM")).toEqual({ status: 400, paths: ["query.continue"] });
    expect(await named("/v1/metrics/impacts?window=0m")).toEqual({ status: 400, paths: ["query.window"] });
    expect((await named("/v1/graph?colour=red")).status).toBe(400);
  });
});
