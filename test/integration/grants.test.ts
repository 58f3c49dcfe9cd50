import { type ResourceSource, type ResourceStatus, type UserDocument, authoredName } from "@meshplane/core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { SqsTranslateQueue } from "../../functions/queue/translate-queue";
import { discoveryOf, registeredAgent } from "../support/agents";
import { buildCli } from "../support/cli";
import { type ControlPlane, startControlPlane, trafficPolicy } from "../support/control-plane";

// Grants end to end (docs/gitops.md#grants): resources authored in a cluster, stored as the agent
// protocol stores them (through the store, with metadata.source), translated by the real worker
// against DynamoDB Local and the SQS emulator, their reach and statuses following the grant.

const TENANT = "grants";
const EAST = "cluster-east";
const WEST = "cluster-west";
let cp: ControlPlane;
let admin: string;
let queue: SqsTranslateQueue;

type Route = { timeout?: string; retries?: { attempts?: number } };
type KubeObject = { kind: string; metadata: { name: string; namespace?: string }; spec?: { http?: Route[] } };

/** A TrafficPolicy as cluster `cluster` authored it: custom resource `name` in namespace `shop`. */
async function author(cluster: string, name: string, spec: Record<string, unknown>, generation = 1): Promise<string> {
  const source: ResourceSource = { cluster, namespace: "shop", name, uid: `uid-${cluster}-${name}`, generation };
  const stored = authoredName(source);
  const doc = { ...trafficPolicy(stored, spec), metadata: { name: stored } } as UserDocument;
  const [result] = await cp.store.resources.write(TENANT, [{ doc, mode: "apply", source }], new Date().toISOString());
  // The agent protocol's route enqueues the translation; stored straight through the store, the test does.
  await queue.enqueue({ tenantId: TENANT, revision: result?.revision as number });
  return stored;
}

const statusOf = async (name: string): Promise<ResourceStatus> => (await cp.store.resources.get(TENANT, "TrafficPolicy", name)).status;
const destinationsOf = async (name: string) => Object.keys((await statusOf(name)).destinations ?? {}).sort();

async function objectsOf(cluster: string): Promise<KubeObject[]> {
  const res = await cp.request("GET", `/v1/clusters/${cluster}/snapshot`, { token: admin });
  return ((await res.json()) as { objects: KubeObject[] }).objects;
}

/** The VirtualServices of a cluster's snapshot with a route that `has`: `namespace/name`. */
async function routed(cluster: string, has: (route: Route) => boolean): Promise<string[]> {
  return (await objectsOf(cluster))
    .filter((o) => o.kind === "VirtualService" && (o.spec?.http ?? []).some(has))
    .map((o) => `${o.metadata.namespace}/${o.metadata.name}`)
    .sort();
}
const timedOut = (cluster: string, timeout: string) => routed(cluster, (r) => r.timeout === timeout);
const retried = (cluster: string, attempts: number) => routed(cluster, (r) => r.retries?.attempts === attempts);

async function grant(cluster: string, body: unknown, token = admin): Promise<Response> {
  return cp.request("PUT", `/v1/clusters/${cluster}/authoring`, { token, body });
}

beforeAll(async () => {
  cp = await startControlPlane();
  admin = await cp.tenant(TENANT);
  queue = new SqsTranslateQueue({ region: "us-east-1", queueUrl: cp.queueUrl, endpoint: inject("sqsEndpoint") });
  for (const cluster of [EAST, WEST]) {
    const { client } = await registeredAgent(cp, admin, TENANT, cluster);
    await client.discovery(discoveryOf("istio-bookinfo", cluster) as never);
  }
  await cp.work();
});
afterAll(() => cp?.stop());

describe("the grants API (docs/gitops.md#grants)", () => {
  it("shows each cluster's effective grant, the default until an admin sets one", async () => {
    const view = (await (await cp.request("GET", `/v1/clusters/${EAST}`, { token: admin })).json()) as { authoring: unknown };
    expect(view.authoring).toEqual({ kinds: ["TrafficPolicy", "AccessPolicy"], clusters: [EAST], default: true });
    const list = (await (await cp.request("GET", "/v1/clusters", { token: admin })).json()) as { items: { name: string; authoring: unknown }[] };
    expect(list.items.map((c) => c.authoring)).toEqual([
      { kinds: ["TrafficPolicy", "AccessPolicy"], clusters: [EAST], default: true },
      { kinds: ["TrafficPolicy", "AccessPolicy"], clusters: [WEST], default: true },
    ]);
  });

  it("refuses a bad grant naming the field, an unknown cluster, and anyone but an admin", async () => {
    const bad = await grant(EAST, { kinds: ["TrafficPolicy", "Mesh"], clusters: ["Bad_Name"] });
    expect(bad.status).toBe(400);
    const problem = (await bad.json()) as { errors: { path: string }[] };
    expect(problem.errors.map((e) => e.path)).toEqual(["kinds[1]", "clusters[0]"]);
    expect((await grant("nowhere", { kinds: [], clusters: ["nowhere"] })).status).toBe(404);
    for (const role of ["editor", "viewer"]) {
      const res = await cp.request("POST", "/v1/tokens", { token: admin, body: { name: `grants-${role}`, role } });
      const { token } = (await res.json()) as { token: string };
      expect((await grant(EAST, { kinds: [], clusters: [EAST] }, token)).status).toBe(403);
      expect((await cp.request("DELETE", `/v1/clusters/${EAST}/authoring`, { token })).status).toBe(403);
    }
    expect(await cp.jobs()).toEqual([]);
  });

  it("sets a grant in one spelling, says which named clusters are not registered, and clears it back", async () => {
    const res = await grant(EAST, { kinds: ["AccessPolicy", "TrafficPolicy", "AccessPolicy"], clusters: ["later", EAST, EAST] });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { authoring: unknown }).authoring).toEqual({
      kinds: ["TrafficPolicy", "AccessPolicy"],
      clusters: [EAST, "later"],
      unregistered: ["later"],
    });
    expect((await cp.jobs()).map((j) => j.body)).toHaveLength(1);
    // The same grant again writes nothing and translates nothing.
    expect((await grant(EAST, { kinds: ["TrafficPolicy", "AccessPolicy"], clusters: [EAST, "later"] })).status).toBe(200);
    expect(await cp.jobs()).toEqual([]);
    const cleared = await cp.request("DELETE", `/v1/clusters/${EAST}/authoring`, { token: admin });
    expect(((await cleared.json()) as { authoring: unknown }).authoring).toEqual({ kinds: ["TrafficPolicy", "AccessPolicy"], clusters: [EAST], default: true });
    expect(await cp.jobs()).toHaveLength(1);
  });

  it("meshplane cluster grant sets and clears it; cluster describe and list -o wide show it", async () => {
    const cli = buildCli();
    const env = { MESHPLANE_URL: cp.url, MESHPLANE_TOKEN: admin };
    const set = await cli.run(["cluster", "grant", WEST, "--kinds", "tp,vm", "--clusters", `${WEST},later`], { env });
    expect(set).toMatchObject({ code: 0, stdout: `cluster ${WEST} may author VirtualMesh, TrafficPolicy over ${WEST}, later\n` });
    expect(set.stderr).toContain("note: cluster later is not registered; the grant covers it once it is");
    expect((await cli.run(["cluster", "describe", WEST], { env })).stdout).toMatch(
      new RegExp(`Authoring:\\s+VirtualMesh, TrafficPolicy over ${WEST}, later\n`),
    );
    expect((await cli.run(["cluster", "list", "-o", "wide"], { env })).stdout).toContain(`TrafficPolicy, AccessPolicy over ${EAST} (default)`);
    expect(await cli.run(["cluster", "grant", WEST, "--default", "--kinds", "tp"], { env })).toMatchObject({ code: 2 });
    const cleared = await cli.run(["cluster", "grant", WEST, "--default"], { env });
    expect(cleared.stdout).toBe(`cluster ${WEST} may author TrafficPolicy, AccessPolicy over ${WEST} (default)\n`);
    expect(await cp.jobs()).toHaveLength(2);
  }, 60_000);
});

describe("translation within grants (docs/gitops.md#grants)", () => {
  let everywhere: string;
  let refs: string;

  it("a policy with no destination selector authored by east reaches only east's destinations", async () => {
    everywhere = await author(EAST, "timeouts", { policy: { requestTimeout: "7s" } });
    await cp.work();
    // Every destination of east (one of them, without an HTTP port, cannot take a timeout).
    expect((await statusOf(everywhere)).destinations?.[`reviews-bookinfo-${EAST}`]?.state).toBe("ACCEPTED");
    const reached = await destinationsOf(everywhere);
    expect(reached.length).toBeGreaterThan(3);
    expect(reached.every((d) => d.endsWith(`-${EAST}`))).toBe(true);
    expect(await timedOut(EAST, "7s")).toContain("bookinfo/reviews");
    expect(await timedOut(WEST, "7s")).toEqual([]);
  });

  it("widened to every cluster, it reaches west's too; a ref to west's service is then allowed", async () => {
    expect((await grant(EAST, { kinds: ["TrafficPolicy"], clusters: ["*"] })).status).toBe(200);
    refs = await author(EAST, "west-reviews", {
      destinationSelector: [{ kubeServiceRefs: { services: [{ cluster: WEST, namespace: "bookinfo", name: "reviews" }] } }],
      policy: { retries: { attempts: 4 } },
    });
    await cp.work();
    const reached = await destinationsOf(everywhere);
    expect(reached).toContain(`reviews-bookinfo-${WEST}`);
    expect(reached).toContain(`reviews-bookinfo-${EAST}`);
    expect(await timedOut(WEST, "7s")).toContain("bookinfo/reviews");
    expect(await statusOf(refs)).toMatchObject({ state: "ACCEPTED" });
    expect(await destinationsOf(refs)).toEqual([`reviews-bookinfo-${WEST}`]);
    expect(await retried(WEST, 4)).toEqual(["bookinfo/reviews"]);
  });

  it("the plan agrees with the job", async () => {
    const unrelated = trafficPolicy("unrelated", { destinationSelector: [{ kubeServiceMatcher: { labels: { app: "nothing-has-this" } } }] });
    const plan = (await (await cp.request("POST", "/v1/plan", { token: admin, body: { documents: [unrelated] } })).json()) as {
      clusters: Record<string, { added: unknown[]; changed: unknown[]; removed: unknown[] }>;
      statuses: Record<string, ResourceStatus>;
    };
    for (const cluster of [EAST, WEST])
      expect(plan.clusters[cluster] ?? { added: [], changed: [], removed: [] }).toMatchObject({ added: [], changed: [], removed: [] });
    for (const name of [everywhere, refs]) {
      const stored = await statusOf(name);
      expect(plan.statuses[`TrafficPolicy/${name}`]).toMatchObject({ state: stored.state, destinations: stored.destinations });
    }
  });

  it("narrowed so a ref names a cluster outside it: INVALID with the reason, and its objects gone", async () => {
    expect((await grant(EAST, { kinds: ["TrafficPolicy"], clusters: [EAST] })).status).toBe(200);
    await cp.work();
    const status = await statusOf(refs);
    expect(status.state).toBe("INVALID");
    expect(status.errors).toEqual([
      `spec.destinationSelector[0].kubeServiceRefs.services[0].cluster: names a service of cluster ${WEST}, outside cluster ${EAST}'s grant (kinds: TrafficPolicy; clusters: ${EAST})`,
    ]);
    expect(await retried(WEST, 4)).toEqual([]);
    expect(await timedOut(WEST, "7s")).toEqual([]);
    expect((await destinationsOf(everywhere)).every((d) => d.endsWith(`-${EAST}`))).toBe(true);
  });

  it("a kind no longer granted: INVALID, and translated no more", async () => {
    expect((await grant(EAST, { kinds: ["AccessPolicy"], clusters: [EAST] })).status).toBe(200);
    await cp.work();
    const status = await statusOf(everywhere);
    expect(status.state).toBe("INVALID");
    expect(status.errors?.[0]).toContain("does not allow TrafficPolicy");
    expect(await timedOut(EAST, "7s")).toEqual([]);
  });

  it("a cluster deregistered: the resources it authored are gone, another cluster's stay", async () => {
    expect((await cp.request("DELETE", `/v1/clusters/${EAST}/authoring`, { token: admin })).status).toBe(200);
    const wests = await author(WEST, "timeouts", { policy: { requestTimeout: "3s" } });
    await cp.work();
    expect(await timedOut(EAST, "7s")).toContain("bookinfo/reviews");
    expect((await cp.request("DELETE", `/v1/clusters/${EAST}`, { token: admin })).status).toBe(204);
    await cp.work();
    expect(
      await cp.store.resources.getMany(
        TENANT,
        [everywhere, refs, wests].map((name) => ({ kind: "TrafficPolicy" as const, name })),
      ),
    ).toEqual([undefined, undefined, expect.objectContaining({ metadata: expect.objectContaining({ name: `timeouts.shop.${WEST}` }) })]);
    expect(await timedOut(WEST, "3s")).toContain("bookinfo/reviews");
  });

  it("a cluster with more authored resources than one write holds: every one goes, in several writes", async () => {
    const sources = Array.from(
      { length: 120 },
      (_, i): ResourceSource => ({ cluster: WEST, namespace: "bulk", name: `p${i}`, uid: `bulk-${i}`, generation: 1 }),
    );
    for (const batch of [sources.slice(0, 60), sources.slice(60)]) {
      const writes = batch.map((source) => ({
        doc: { ...trafficPolicy(authoredName(source)), metadata: { name: authoredName(source) } } as UserDocument,
        mode: "apply" as const,
        source,
      }));
      await cp.store.resources.write(TENANT, writes, new Date().toISOString());
    }
    expect((await cp.store.resources.list(TENANT, "TrafficPolicy")).filter((r) => r.metadata.source?.cluster === WEST)).toHaveLength(121);
    const before = (await cp.store.tenants.get(TENANT)).revision;
    expect((await cp.request("DELETE", `/v1/clusters/${WEST}`, { token: admin })).status).toBe(204);
    expect((await cp.store.resources.list(TENANT, "TrafficPolicy")).filter((r) => r.metadata.source !== undefined)).toEqual([]);
    expect((await cp.store.tenants.get(TENANT)).revision - before).toBe(2);
    expect((await cp.request("DELETE", `/v1/clusters/${WEST}`, { token: admin })).status).toBe(404);
  });
});
