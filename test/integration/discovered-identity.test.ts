/**
 * One cluster cannot take another's mesh identity, and one name cannot stop a tenant (docs/api.md,
 * "Discovered names"), against DynamoDB Local, the SQS emulator, the HTTP API and the worker: an agent
 * that reports another cluster's mesh name gets its own cluster's name, no certificate directive for
 * the other mesh and no intermediate CA under the VirtualMesh's root; clusters whose plain joined
 * names would collide (`api` in `shop-us` of `east`, `api` in `shop` of `us-east`) are both translated.
 */
import {
  type CertificateDirective,
  type DiscoveryResult,
  type SnapshotPayload,
  createCsr,
  generateKeyPair,
  snapshotAudience,
  verifySnapshot,
} from "@meshplane/core";
import type { JWK } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ControlPlaneClient } from "../../packages/agent/src/control-plane/client";
import { discoveryOf, registeredAgent } from "../support/agents";
import { type ControlPlane, startControlPlane } from "../support/control-plane";

let cp: ControlPlane;
let admin: string;
let jwks: { keys: JWK[] };
const agents = new Map<string, { client: ControlPlaneClient; audience: string }>();

async function agent(tenant: string, token: string, cluster: string) {
  const { client, incarnation } = await registeredAgent(cp, token, tenant, cluster);
  const audience = snapshotAudience(tenant, cluster, incarnation);
  agents.set(`${tenant}/${cluster}`, { client, audience });
  return client;
}

async function directives(tenant: string, cluster: string): Promise<CertificateDirective[]> {
  const { client } = agents.get(`${tenant}/${cluster}`) as { client: ControlPlaneClient; audience: string };
  const answer = await client.snapshot();
  if (!answer.changed || !answer.jws) return [];
  const payload: SnapshotPayload = await verifySnapshot(answer.jws, {
    trustedKeys: jwks.keys,
    audience: (agents.get(`${tenant}/${cluster}`) as { audience: string }).audience,
    lastGeneration: 0,
    now: cp.clock.now,
  });
  return payload.certificates as unknown as CertificateDirective[];
}

async function names(token: string, path: string): Promise<string[]> {
  const res = await cp.request("GET", path, { token });
  expect(res.status).toBe(200);
  return ((await res.json()) as { items: { metadata: { name: string } }[] }).items.map((i) => i.metadata.name).sort();
}

/** Bookinfo's discovery of `cluster` with one Service, `api` in `namespace`. */
function apiIn(cluster: string, namespace: string) {
  const base = discoveryOf("istio-bookinfo", cluster);
  const reviews = base.destinations.find((d) => d.spec.name === "reviews") as DiscoveryResult["destinations"][number];
  return { ...base, destinations: [{ ...reviews, spec: { ...reviews.spec, name: "api", namespace } }] };
}

beforeAll(async () => {
  cp = await startControlPlane();
  jwks = await cp.signer.jwks();
  admin = await cp.tenant("identity");
});
afterAll(async () => cp?.stop());

describe("a cluster reporting another cluster's mesh name", () => {
  it("gets its own name, no directive for the other mesh, and no intermediate under its root", async () => {
    const one = await agent("identity", admin, "cluster-1");
    const two = await agent("identity", admin, "cluster-2");
    await one.discovery(discoveryOf("istio-bookinfo", "cluster-1"));
    // cluster-2's agent claims cluster-1's mesh, and points its workloads and services at it.
    const { hash, ...honest } = discoveryOf("istio-bookinfo", "cluster-2");
    const victim = "istiod-istio--system-cluster-1";
    const forged: DiscoveryResult = {
      meshes: honest.meshes.map((m) => ({ ...m, metadata: { ...m.metadata, name: victim } })),
      workloads: honest.workloads.map((w) => ({ ...w, spec: { ...w.spec, mesh: victim } })),
      destinations: honest.destinations.map((d) => ({ ...d, spec: { ...d.spec, mesh: victim } })),
    };
    await two.discovery({ ...forged, hash });
    const meshes = (await (await cp.request("GET", "/v1/meshes", { token: admin })).json()) as { items: { metadata: { name: string; cluster: string } }[] };
    expect(meshes.items.map((m) => `${m.metadata.cluster}:${m.metadata.name}`).sort()).toEqual([
      "cluster-1:istiod-istio--system-cluster-1",
      "cluster-2:istiod-istio--system-cluster-2",
    ]);

    const res = await cp.request("POST", "/v1/virtualmeshes", {
      token: admin,
      body: {
        apiVersion: "meshplane.dev/v1",
        kind: "VirtualMesh",
        metadata: { name: "only-one" },
        spec: { meshes: [{ name: victim }], mtlsConfig: { shared: { rootCertificateAuthority: { generated: {} } } } },
      },
    });
    expect(res.status).toBe(201);
    await cp.work();
    expect((await directives("identity", "cluster-1")).map((d) => d.mesh)).toEqual([victim]);
    expect(await directives("identity", "cluster-2")).toEqual([]);

    const keyPair = await generateKeyPair(globalThis.crypto, "ECDSA_P256");
    const csr = await createCsr(globalThis.crypto, { keyPair, spiffeId: "spiffe://cluster.local/ns/istio-system/sa/istiod" });
    const refused = await two.csr({ mesh: victim, csr }).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(refused, "cluster-2 got an intermediate CA for cluster-1's mesh").toBeInstanceOf(Error);
    expect(String(refused)).toMatch(/\b40[03]\b/);
  });

  it("is refused, naming the field, when its report refers to a mesh it does not report", async () => {
    const three = await agent("identity", admin, "cluster-3");
    const { hash, ...honest } = discoveryOf("istio-bookinfo", "cluster-3");
    const res = await three
      .discovery({ ...honest, destinations: honest.destinations.map((d) => ({ ...d, spec: { ...d.spec, mesh: "istiod-istio--system-cluster-1" } })), hash })
      .catch((e: Error) => e);
    expect(String(res)).toMatch(/destinations\[0\]\.spec\.mesh/);
    expect(await names(admin, "/v1/destinations?cluster=cluster-3")).toEqual([]);
  });
});

describe("names an agent reports", () => {
  it("are bounded at the boundary: a 600-character or non-ASCII name is a 400 naming the field, never a 500", async () => {
    const four = await agent("identity", admin, "cluster-4");
    const { hash, ...honest } = discoveryOf("istio-bookinfo", "cluster-4");
    const [first] = honest.destinations as [DiscoveryResult["destinations"][number]];
    for (const [name, path] of [
      ["x".repeat(600), "destinations[0].spec.name"],
      ["résumé", "destinations[0].spec.name"],
    ] as const) {
      const error = await four.discovery({ ...honest, destinations: [{ ...first, spec: { ...first.spec, name } }], hash }).catch((e: Error) => e);
      expect(String(error)).toContain("400");
      expect(String(error)).toContain(path);
    }
    const handle = await four
      .discovery({ ...honest, destinations: [{ ...first, metadata: { ...first.metadata, name: "y".repeat(600) } }], hash })
      .catch((e: Error) => e);
    expect(String(handle)).toContain("destinations[0].metadata.name");
  });
});

describe("names that joining alone would merge", () => {
  it("keeps east's api in shop-us and us-east's api in shop apart, and translates both", async () => {
    const token = await cp.tenant("collide");
    await (await agent("collide", token, "east")).discovery(apiIn("east", "shop-us"));
    await (await agent("collide", token, "us-east")).discovery(apiIn("us-east", "shop"));
    const destinations = await names(token, "/v1/destinations");
    expect(destinations).toHaveLength(2);
    expect(new Set(destinations).size).toBe(2);

    const policy = {
      apiVersion: "meshplane.dev/v1",
      kind: "TrafficPolicy",
      metadata: { name: "timeouts" },
      spec: {
        destinationSelector: [
          {
            kubeServiceRefs: {
              services: [
                { cluster: "east", namespace: "shop-us", name: "api" },
                { cluster: "us-east", namespace: "shop", name: "api" },
              ],
            },
          },
        ],
        policy: { requestTimeout: "2s" },
      },
    };
    const plan = await cp.request("POST", "/v1/plan", { token, body: { documents: [policy] } });
    expect(plan.status).toBe(200);
    expect((await cp.request("POST", "/v1/trafficpolicies", { token, body: policy })).status).toBe(201);
    await cp.work();
    const status = (
      (await (await cp.request("GET", "/v1/trafficpolicies/timeouts", { token })).json()) as {
        status: { state: string; destinations: Record<string, unknown> };
      }
    ).status;
    expect(status.state).toBe("ACCEPTED");
    expect(Object.keys(status.destinations)).toHaveLength(2);
  });
});
