import { DeleteCommand } from "@aws-sdk/lib-dynamodb";
import { snapshotAudience, verifySnapshot } from "@meshplane/core";
import type { JWK } from "jose";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ControlPlaneClient } from "../../packages/agent/src/control-plane/client";
import { createDocumentClient } from "../../functions/store/client";
import { keys } from "../../functions/store/keys";
import { publishCluster } from "../../functions/translation/publish";
import { translateTenant } from "../../functions/translation/job";
import { agentKey, discoveryOf, registeredAgent } from "../support/agents";
import { type ControlPlane, startControlPlane } from "../support/control-plane";

/**
 * A snapshot is signed for one incarnation of `<tenant>/<cluster>`: a cluster deregistered and
 * registered again, or a tenant deleted and created again, under the same name is another one, and
 * neither incarnation's agent accepts what was signed for the other.
 */
let cp: ControlPlane;
let jwks: { keys: JWK[] };

beforeAll(async () => {
  cp = await startControlPlane();
  jwks = (await (await cp.request("GET", "/.well-known/jwks.json")).json()) as { keys: JWK[] };
});
afterAll(() => cp.stop());

/** Verifies as an agent that registered with `audience`'s incarnation and applied nothing yet (a reset agent). */
const verifyAt = (audience: string, jws: string) => verifySnapshot(jws, { trustedKeys: jwks.keys, audience, lastGeneration: 0, now: new Date() });

/** Registers `cluster` and its agent, has the worker publish its first snapshot, and fetches it as the agent. */
async function published(admin: string, tenant: string, cluster: string): Promise<{ incarnation: string | undefined; audience: string; jws: string }> {
  const agent = await registeredAgent(cp, admin, tenant, cluster);
  await agent.client.discovery(discoveryOf("istio-bookinfo", cluster));
  await cp.work();
  // A re-created tenant's first jobs repeat the deleted one's dedup ids (`<tenant>-<revision>`), so
  // the FIFO queue drops them for its 5-minute window; the worker runs on the revision directly (a
  // no-op when the queue already translated it).
  await translateTenant(cp.worker, { tenantId: tenant, revision: (await cp.store.tenants.get(tenant)).revision });
  const answer = await agent.client.snapshot();
  if (!answer.changed || !answer.jws) throw new Error(`no snapshot for ${tenant}/${cluster}`);
  return { incarnation: agent.incarnation, audience: snapshotAudience(tenant, cluster, agent.incarnation), jws: answer.jws };
}

describe("a tenant/cluster name used again", () => {
  it.each<[string, string, (admin: string) => Promise<string>]>([
    [
      "the cluster deregistered and registered again",
      "again",
      async (admin) => {
        expect((await cp.request("DELETE", "/v1/clusters/east", { token: admin })).status).toBe(204);
        await cp.work();
        return admin;
      },
    ],
    [
      "the tenant deleted and created again",
      "reborn",
      async () => {
        expect((await cp.request("DELETE", "/v1/tenants/reborn", { token: cp.operatorToken })).status).toBe(204);
        return cp.tenant("reborn");
      },
    ],
  ])("%s: neither incarnation's agent accepts the other's snapshot", async (_what, tenant, reuse) => {
    const admin = await cp.tenant(tenant);
    const old = await published(admin, tenant, "east");
    await expect(verifyAt(old.audience, old.jws)).resolves.toMatchObject({ tenant, cluster: "east", generation: 1 });

    const fresh = await published(await reuse(admin), tenant, "east");
    expect(fresh.incarnation).toEqual(expect.any(String));
    expect(fresh.incarnation).not.toBe(old.incarnation);
    await expect(verifyAt(fresh.audience, fresh.jws)).resolves.toMatchObject({ tenant, cluster: "east", generation: 1 });
    // The reset agent of the new incarnation refuses what was signed for the old one…
    await expect(verifyAt(fresh.audience, old.jws)).rejects.toMatchObject({ reason: "wrong-audience" });
    // …and the old agent, with its stored incarnation, refuses the new incarnation's snapshot.
    await expect(verifyAt(old.audience, fresh.jws)).rejects.toMatchObject({ reason: "wrong-audience" });
  });

  it("a worker that read the deleted cluster's head cannot publish into the re-created one", async () => {
    const admin = await cp.tenant("late");
    await registeredAgent(cp, admin, "late", "east");
    const stale = await cp.store.snapshots.head("late", "east", true);
    expect((await cp.request("DELETE", "/v1/clusters/east", { token: admin })).status).toBe(204);
    const fresh = await registeredAgent(cp, admin, "late", "east");
    const before = await cp.store.snapshots.head("late", "east", true);
    expect(before?.incarnation).toBe(fresh.incarnation);

    const object = {
      apiVersion: "networking.istio.io/v1",
      kind: "VirtualService",
      metadata: { name: "reviews", namespace: "shop", labels: {}, annotations: {} },
    };
    const output = { objects: [object], certificates: [], hash: `sha256:${"1".repeat(64)}` };
    await expect(publishCluster(cp.worker, "late", "east", output, stale, new Date())).rejects.toMatchObject({ name: "ConflictError" });
    expect(await cp.store.snapshots.head("late", "east", true)).toEqual(before);
  });
});

describe("a cluster created before incarnations", () => {
  it("keeps the audience without one, and its agent learns none on registering", async () => {
    const admin = await cp.tenant("legacy");
    const res = await cp.request("POST", "/v1/clusters", { token: admin, body: { name: "east" } });
    const { bootstrapToken } = (await res.json()) as { bootstrapToken: string };
    // Such a cluster had no head item until its agent registered.
    const doc = createDocumentClient({ region: "us-east-1", endpoint: inject("dynamoEndpoint") });
    await doc.send(new DeleteCommand({ TableName: cp.table, Key: keys.snapshotHead("legacy", "east") }));

    const key = await agentKey();
    expect(await ControlPlaneClient.register(cp.url, bootstrapToken, key.publicJwk, "test")).toEqual({ tenant: "legacy", cluster: "east" });
    const client = new ControlPlaneClient({ url: cp.url, tenant: "legacy", cluster: "east", key, now: () => cp.clock.now });
    await client.discovery(discoveryOf("istio-bookinfo", "east"));
    await cp.work();
    const answer = (await client.snapshot()) as { jws: string };
    await expect(verifyAt(snapshotAudience("legacy", "east"), answer.jws)).resolves.toMatchObject({ aud: "legacy/east" });
    await expect(verifyAt(snapshotAudience("legacy", "east", "7d9e1f20-3a4b-4c5d-9e8f-1a2b3c4d5e6f"), answer.jws)).rejects.toMatchObject({
      reason: "wrong-audience",
    });
  });
});
