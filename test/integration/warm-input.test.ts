/**
 * The translate worker's warm input (functions/translation/warm-input.ts) against the real store on
 * DynamoDB Local: after any sequence of changes made through the API and by agents — policies
 * created, replaced and deleted, discovery reports that add and drop services, clusters deregistered
 * and registered again, statuses written by a worker — the input brought up to date from the change
 * log equals a full load, and translates to byte-identical output, warm translation included.
 */
import * as fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TranslateInput, canonicalJson, translate } from "@meshplane/core";
import type { ControlPlaneClient } from "../../packages/agent/src/control-plane/client";
import { loadTranslateInput } from "../../functions/translation/input";
import { type LoadStats, WarmInputs } from "../../functions/translation/warm-input";
import { CHANGE_LOG_SLACK } from "../../functions/store/index";
import { discoveryOf, registeredAgent } from "../support/agents";
import { type ControlPlane, accessPolicy, startControlPlane, trafficPolicy, virtualMesh } from "../support/control-plane";

const TENANT = "warm";
const FIXTURE_OF: Record<string, string> = { "cluster-east": "istio-bookinfo", "cluster-west": "istio-revision-eastwest", "cluster-osm": "osm-bookinfo" };

let cp: ControlPlane;
let admin: string;
const agents = new Map<string, ControlPlaneClient>();

type Command =
  | { op: "traffic"; name: string; timeout: string; namespace: string }
  | { op: "access"; name: string; namespace: string }
  | { op: "mesh"; meshes: number }
  | { op: "delete"; kind: "trafficpolicies" | "accesspolicies" | "virtualmeshes"; name: string }
  | { op: "discovery"; cluster: string; drop: number }
  | { op: "status"; name: string; state: "ACCEPTED" | "INVALID" }
  | { op: "reregister"; cluster: string };

const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({
    op: fc.constant("traffic" as const),
    name: fc.constantFrom("tp-a", "tp-b", "tp-c"),
    timeout: fc.constantFrom("1s", "2s", "5s"),
    namespace: fc.constantFrom("bookinfo", "payments"),
  }),
  fc.record({ op: fc.constant("access" as const), name: fc.constantFrom("ap-a", "ap-b"), namespace: fc.constantFrom("bookinfo", "payments") }),
  fc.record({ op: fc.constant("mesh" as const), meshes: fc.constantFrom(1, 2) }),
  fc.record({
    op: fc.constant("delete" as const),
    kind: fc.constantFrom("trafficpolicies" as const, "accesspolicies" as const, "virtualmeshes" as const),
    name: fc.constantFrom("tp-a", "tp-b", "ap-a", "vm"),
  }),
  fc.record({
    op: fc.constant("discovery" as const),
    cluster: fc.constantFrom("cluster-east", "cluster-west", "cluster-osm"),
    drop: fc.integer({ min: 0, max: 3 }),
  }),
  fc.record({
    op: fc.constant("status" as const),
    name: fc.constantFrom("tp-a", "tp-b", "tp-c"),
    state: fc.constantFrom("ACCEPTED" as const, "INVALID" as const),
  }),
  fc.record({ op: fc.constant("reregister" as const), cluster: fc.constantFrom("cluster-east", "cluster-osm") }),
);

/** Registers a cluster and its agent, and reports the cluster's fixture. */
async function join(cluster: string): Promise<void> {
  const { client } = await registeredAgent(cp, admin, TENANT, cluster);
  agents.set(cluster, client);
  await client.discovery(discoveryOf(FIXTURE_OF[cluster] as string, cluster) as never);
}

async function apply(document: unknown): Promise<void> {
  const res = await cp.request("POST", "/v1/apply", { token: admin, body: { documents: [document] } });
  expect(res.status, await res.clone().text()).toBe(200);
}

async function run(c: Command, warm: WarmInputs): Promise<void> {
  switch (c.op) {
    case "traffic":
      return apply(
        trafficPolicy(c.name, { destinationSelector: [{ kubeServiceMatcher: { namespaces: [c.namespace] } }], policy: { requestTimeout: c.timeout } }),
      );
    case "access":
      return apply(accessPolicy(c.name, { destinationSelector: [{ kubeServiceMatcher: { namespaces: [c.namespace] } }] }));
    case "mesh":
      return apply(
        virtualMesh("vm", { meshes: [{ name: "istiod-istio--system-cluster-east" }, { name: "istiod--1--24-istio--system-cluster-west" }].slice(0, c.meshes) }),
      );
    case "delete": {
      const res = await cp.request("DELETE", `/v1/${c.kind}/${c.name}`, { token: admin });
      expect([200, 404]).toContain(res.status);
      return;
    }
    case "discovery": {
      const full = discoveryOf(FIXTURE_OF[c.cluster] as string, c.cluster);
      await agents.get(c.cluster)?.discovery({ ...full, destinations: full.destinations.slice(c.drop) } as never);
      return;
    }
    case "status": {
      // What a worker does after translating: the status, kept in the warm input too.
      const stored = await cp.store.resources.getMany(TENANT, [{ kind: "TrafficPolicy", name: c.name }]);
      const resource = stored[0];
      if (resource === undefined) return;
      const status = {
        state: c.state,
        observedGeneration: resource.metadata.generation,
        ...(c.state === "INVALID" ? { errors: ["made up by the test"] } : {}),
      } as never;
      if (await cp.store.resources.writeStatus(TENANT, "TrafficPolicy", c.name, resource.metadata.generation, status))
        warm.statusWritten(TENANT, "TrafficPolicy", c.name, status);
      return;
    }
    case "reregister": {
      const res = await cp.request("DELETE", `/v1/clusters/${c.cluster}`, { token: admin });
      expect(res.status).toBe(204);
      await join(c.cluster);
      return;
    }
  }
}

const byKey =
  <T>(key: (t: T) => string) =>
  (a: T, b: T) =>
    key(a).localeCompare(key(b));
const discovered = (o: { metadata: { name: string }; spec: { cluster: string } }) => `${o.spec.cluster}/${o.metadata.name}`;
const named = (o: { metadata: { name: string } }) => o.metadata.name;

/** The input with every list in one order (translation does not depend on it; the comparison does). */
function normalised(input: TranslateInput): string {
  return canonicalJson({
    ...input,
    meshes: [...input.meshes].sort(byKey(discovered)),
    workloads: [...input.workloads].sort(byKey(discovered)),
    destinations: [...input.destinations].sort(byKey(discovered)),
    virtualMeshes: [...input.virtualMeshes].sort(byKey(named)),
    trafficPolicies: [...input.trafficPolicies].sort(byKey(named)),
    accessPolicies: [...input.accessPolicies].sort(byKey(named)),
  });
}

async function compare(warm: WarmInputs): Promise<LoadStats> {
  const tenant = await cp.store.tenants.get(TENANT);
  const { input, stats, translator } = await warm.load(tenant);
  const cold = await loadTranslateInput(cp.store, TENANT);
  expect(normalised(input)).toBe(normalised(cold));
  const expected = canonicalJson(translate(cold));
  expect(canonicalJson(translate(input))).toBe(expected);
  // The tenant's warm translation, which redoes only what changed since the last load, gives the same.
  expect(canonicalJson(translator.translate(input))).toBe(expected);
  return stats;
}

beforeAll(async () => {
  cp = await startControlPlane();
  admin = await cp.tenant(TENANT);
  for (const cluster of Object.keys(FIXTURE_OF)) await join(cluster);
}, 120_000);

afterAll(async () => {
  await cp?.stop();
});

describe("warm translate input", () => {
  it("read from the change log, it equals a full load after any sequence of changes", async () => {
    const warm = new WarmInputs(cp.store);
    const modes = { full: 0, changes: 0 };
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 6 }), async (commands) => {
        for (const c of commands) {
          await run(c, warm);
          modes[(await compare(warm)).mode]++;
        }
      }),
      { numRuns: 12 },
    );
    // Only the first load is cold: everything after it comes from the change log.
    expect(modes.full).toBe(1);
    expect(modes.changes).toBeGreaterThan(20);
  }, 300_000);

  it("one policy changed reads the change log's window and that policy, nothing else", async () => {
    const warm = new WarmInputs(cp.store);
    expect((await compare(warm)).mode).toBe("full");
    await run({ op: "traffic", name: "tp-a", timeout: "9s", namespace: "bookinfo" }, warm);
    const one = await compare(warm);
    // The log entries in the window (CHANGE_LOG_SLACK of them, and the new one), and the one policy.
    expect(one.mode).toBe("changes");
    expect(one.itemsRead).toBeLessThanOrEqual(CHANGE_LOG_SLACK + 2);
    // A discovery report reads that cluster's discovered objects again.
    await run({ op: "discovery", cluster: "cluster-west", drop: 1 }, warm);
    const stats = await compare(warm);
    const cold = await loadTranslateInput(cp.store, TENANT);
    const west = [...cold.meshes, ...cold.workloads, ...cold.destinations].filter((o) => o.spec.cluster === "cluster-west").length;
    expect(stats.mode).toBe("changes");
    expect(stats.itemsRead).toBeLessThanOrEqual(CHANGE_LOG_SLACK + 1 + west);
  }, 60_000);

  it("a change too large for a change-log entry makes the next load a full one", async () => {
    const warm = new WarmInputs(cp.store);
    await compare(warm);
    const documents = Array.from({ length: 99 }, (_, i) => trafficPolicy(`bulk-${i}`));
    expect((await cp.request("POST", "/v1/apply", { token: admin, body: { documents } })).status).toBe(200);
    expect(await compare(warm)).toMatchObject({ mode: "full", reason: "a change without a change-log entry" });
    // And the one after is from the log again.
    await run({ op: "delete", kind: "trafficpolicies", name: "tp-a" }, warm);
    expect((await compare(warm)).mode).toBe("changes");
  }, 60_000);

  it("a tenant deleted and created again under the same name is loaded whole", async () => {
    const warm = new WarmInputs(cp.store);
    await compare(warm);
    expect((await cp.request("DELETE", `/v1/tenants/${TENANT}`, { token: cp.operatorToken })).status).toBe(204);
    admin = await cp.tenant(TENANT);
    expect(await compare(warm)).toMatchObject({ mode: "full", reason: "the tenant was created again" });
  }, 60_000);
});
