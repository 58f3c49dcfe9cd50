/**
 * The CA signer (functions/trust/ca-signer) against DynamoDB Local and the SQS emulator: the only code that
 * opens a CA key, and it decides what to sign from the store alone — the directive in the snapshot
 * the control plane signed for the cluster, the VirtualMesh as it is now, every CSR its CA has
 * signed — checked before the key is opened (docs/shared-trust.md, "Who can sign").
 */
import { gunzipSync, gzipSync } from "node:zlib";
import { PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { type CertificateDirective, createCsr, generateKeyPair } from "@meshplane/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ControlPlaneClient } from "../../packages/agent/src/control-plane/client";
import { requestIntermediate } from "../../functions/trust/ca-signer/contract";
import { inProcessCsrSigner } from "../../functions/trust/ca-signer/in-process";
import { createCsrSigner } from "../../functions/trust/ca-signer/signer";
import type { KeyVault } from "../../functions/trust/key-vault";
import { ConflictError, ForbiddenError } from "../../functions/shared/errors";
import { createLogger } from "../../functions/shared/logger";
import { keys } from "../../functions/store/keys";
import { discoveryOf, registeredAgent } from "../support/agents";
import { type ControlPlane, startControlPlane } from "../support/control-plane";

const TENANT = "signer";
const CLUSTERS = ["cluster-1", "cluster-2"] as const;
const ISTIOD = "spiffe://cluster.local/ns/istio-system/sa/istiod";

let cp: ControlPlane;
let admin: string;
const agents = new Map<string, ControlPlaneClient>();
/** The discovered mesh of each cluster, by cluster. */
const meshOf = new Map<string, string>();

const virtualMesh = (meshes: string[]) => ({
  apiVersion: "meshplane.dev/v1",
  kind: "VirtualMesh",
  metadata: { name: "bookinfo" },
  spec: { meshes: meshes.map((name) => ({ name })), mtlsConfig: { shared: { rootCertificateAuthority: { generated: {} } } }, federation: { selectors: [{}] } },
});

async function freshCsr(identity = ISTIOD): Promise<string> {
  return createCsr(globalThis.crypto, { keyPair: await generateKeyPair(globalThis.crypto, "ECDSA_P256"), spiffeId: identity });
}

/** `POST /v1/agent/csr` as the agent of `cluster` sends it. */
async function post(cluster: string, mesh: string, csr: string): Promise<{ status: number; body: { detail?: string; errors?: { path: string }[] } }> {
  const client = agents.get(cluster) as ControlPlaneClient;
  const res = await fetch(`${cp.url}/v1/agent/csr`, {
    method: "POST",
    headers: { authorization: `Bearer ${await client.token()}`, "content-type": "application/json" },
    body: JSON.stringify({ mesh, csr }),
  });
  return { status: res.status, body: (await res.json()) as { detail?: string } };
}

const head = async (cluster: string) => cp.store.snapshots.head(TENANT, cluster, true);
/** The table as a writer of it sees it, with no snapshot signing key. */
const table = () => (cp.store as unknown as { cas: { deps: { doc: { send: (c: unknown) => Promise<unknown> } } } }).cas.deps.doc;

beforeAll(async () => {
  cp = await startControlPlane();
  admin = await cp.tenant(TENANT);
  for (const cluster of CLUSTERS) {
    const { client } = await registeredAgent(cp, admin, TENANT, cluster);
    agents.set(cluster, client);
    await client.discovery(discoveryOf("istio-bookinfo", cluster));
  }
  await cp.work();
  const meshes = (await (await cp.request("GET", "/v1/meshes", { token: admin })).json()) as {
    items: { metadata: { name: string }; spec: { cluster: string } }[];
  };
  for (const m of meshes.items) meshOf.set(m.spec.cluster, m.metadata.name);
  expect(CLUSTERS.map((c) => meshOf.has(c))).toEqual([true, true]);
  expect((await cp.request("POST", "/v1/virtualmeshes", { token: admin, body: virtualMesh([...meshOf.values()]) })).status).toBe(201);
  await cp.work();
  for (const cluster of CLUSTERS) expect((await head(cluster))?.directives?.map((d) => d.mesh)).toEqual([meshOf.get(cluster)]);
});
afterAll(() => cp.stop());

describe("what the CA signer signs", () => {
  it("signs a mesh only under a directive in the snapshot signed for the cluster: one written into S#HEAD by hand is refused", async () => {
    const own = (await head("cluster-1"))?.directives?.[0] as CertificateDirective;
    const other = { ...own, mesh: meshOf.get("cluster-2") as string };
    // What a writer of the table who cannot sign snapshots could do: add a directive for another cluster's mesh.
    await table().send(
      new UpdateCommand({
        TableName: cp.table,
        Key: keys.snapshotHead(TENANT, "cluster-1"),
        UpdateExpression: "SET directives = :d",
        ExpressionAttributeValues: { ":d": [own, other] },
      }),
    );
    const forged = await post("cluster-1", meshOf.get("cluster-2") as string, await freshCsr());
    expect(forged.status).toBe(403);
    expect(forged.body.detail).toContain("no certificate directive");
    expect(cp.logs.some((l) => l.includes("CSR refused") && l.includes('"cluster":"cluster-1"'))).toBe(true);
    expect((await post("cluster-1", meshOf.get("cluster-1") as string, await freshCsr())).status).toBe(200);
  });

  it("signs only under a snapshot signed by the control plane: a published body rewritten to carry another mesh's directive is refused", async () => {
    const published = (await head("cluster-1"))?.snapshot;
    expect(published?.chunks).toBe(1);
    const generation = published?.generation as number;
    const original = await cp.store.snapshots.body(TENANT, "cluster-1", published as NonNullable<typeof published>);
    const [header, payload, signature] = gunzipSync(original).toString("utf8").split(".") as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as { certificates: CertificateDirective[] };
    const other = { ...(claims.certificates[0] as CertificateDirective), mesh: meshOf.get("cluster-2") as string };
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...claims, certificates: [...claims.certificates, other] })).toString("base64url")}.${signature}`;
    const chunk = async (data: Buffer) =>
      table().send(new PutCommand({ TableName: cp.table, Item: { ...keys.snapshotChunk(TENANT, "cluster-1", generation, 0), data } }));
    await chunk(gzipSync(forged));
    try {
      const refused = await post("cluster-1", other.mesh, await freshCsr());
      expect(refused.status).toBe(403);
      expect(refused.body.detail).toBe(
        "the snapshot published for cluster cluster-1 does not verify; the control plane publishes a new one on its next translation",
      );
      expect(cp.logs.some((l) => l.includes("the published snapshot does not verify") && l.includes('"cluster":"cluster-1"'))).toBe(true);
    } finally {
      await chunk(original);
    }
    expect((await post("cluster-1", meshOf.get("cluster-1") as string, await freshCsr())).status).toBe(200);
  });

  it("refuses a mesh its VirtualMesh no longer lists, though no translation has run since the edit", async () => {
    const mesh2 = meshOf.get("cluster-2") as string;
    expect((await cp.request("PUT", "/v1/virtualmeshes/bookinfo", { token: admin, body: virtualMesh([meshOf.get("cluster-1") as string]) })).status).toBe(200);
    // The directive is still in cluster-2's published snapshot: the worker has not run.
    expect((await head("cluster-2"))?.directives?.map((d) => d.mesh)).toEqual([mesh2]);
    const refused = await post("cluster-2", mesh2, await freshCsr());
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toBe(`VirtualMesh bookinfo no longer lists mesh ${mesh2}`);
    expect((await cp.request("PUT", "/v1/virtualmeshes/bookinfo", { token: admin, body: virtualMesh([...meshOf.values()]) })).status).toBe(200);
    expect((await post("cluster-2", mesh2, await freshCsr())).status).toBe(200);
    await cp.work();
  });

  it("refuses a CSR it signed before, however many it signed since", async () => {
    const mesh = meshOf.get("cluster-1") as string;
    const first = await freshCsr();
    expect((await post("cluster-1", mesh, first)).status).toBe(200);
    for (let i = 0; i < 17; i++) expect((await post("cluster-1", mesh, await freshCsr())).status).toBe(200);
    const replay = await post("cluster-1", mesh, first);
    expect(replay.status).toBe(409);
    expect(replay.body.detail).toContain("already presented");
  });
});

/** The signer over the control plane's store and key vault, counting how often a CA key is opened. */
function countingSigner() {
  const { deps, counting } = countingDeps();
  return { signer: createCsrSigner(deps), counting };
}

/** The signer's dependencies over the control plane's store and key vault, counting how often a CA key is opened. */
function countingDeps() {
  const vault = cp.worker.authority.vault;
  const counting = { opened: 0 };
  const wrapped: KeyVault = { seal: (p, c) => vault.seal(p, c), open: (s, c) => (counting.opened++, vault.open(s, c)) };
  const deps = {
    store: cp.store,
    authority: { vault: wrapped, crypto: globalThis.crypto },
    trustedKeys: async () => (await cp.signer.jwks()).keys,
    log: createLogger({}, () => undefined),
    now: () => cp.clock.now,
  };
  return { deps, counting };
}

describe("the CA signer, called as the API calls it", () => {
  it("checks in order: directive, then replay, then signs and records — a refused directive leaves no record, a replay opens no key", async () => {
    const { deps, counting } = countingDeps();
    const signer = inProcessCsrSigner(deps);
    const csr = await freshCsr();
    const request = { tenantId: TENANT, cluster: "cluster-1", mesh: meshOf.get("cluster-1") as string, csr };
    // No directive for another cluster's mesh: refused before the replay check, so nothing is recorded.
    await expect(requestIntermediate(signer, { ...request, mesh: meshOf.get("cluster-2") as string })).rejects.toBeInstanceOf(ForbiddenError);
    expect(counting.opened).toBe(0);
    // The same CSR under its directive: not a replay, signed (the key opened once) and recorded.
    expect((await requestIntermediate(signer, request)).certChain).toContain("BEGIN CERTIFICATE");
    expect(counting.opened).toBe(1);
    // Presented again: refused as a replay before the key is opened.
    const replay = requestIntermediate(signer, request);
    await expect(replay).rejects.toBeInstanceOf(ConflictError);
    await expect(replay).rejects.toThrow("already presented");
    expect(counting.opened).toBe(1);
  });

  it("refuses a replay before it opens the CA key", async () => {
    const { signer, counting } = countingSigner();
    const request = { tenantId: TENANT, cluster: "cluster-1", mesh: meshOf.get("cluster-1") as string, csr: await freshCsr() };
    expect((await signer.sign(request)).ok).toBe(true);
    expect(counting.opened).toBe(1);
    expect(await signer.sign(request)).toMatchObject({ ok: false, status: 409 });
    expect(counting.opened).toBe(1);
  });

  it("of two requests with one CSR at once, signs one and refuses the other without opening the key", async () => {
    const { signer, counting } = countingSigner();
    const request = { tenantId: TENANT, cluster: "cluster-2", mesh: meshOf.get("cluster-2") as string, csr: await freshCsr() };
    const answers = await Promise.all([signer.sign(request), signer.sign(request)]);
    expect(answers.map((a) => (a.ok ? 200 : a.status)).sort()).toEqual([200, 409]);
    expect(counting.opened).toBe(1);
  });

  it("keeps no claim on a CSR it refused: the same CSR is refused for what it is, not as a replay", async () => {
    const { signer } = countingSigner();
    const request = {
      tenantId: TENANT,
      cluster: "cluster-1",
      mesh: meshOf.get("cluster-1") as string,
      csr: await freshCsr("spiffe://cluster.local/ns/bookinfo/sa/productpage"),
    };
    expect(await signer.sign(request)).toMatchObject({ ok: false, status: 400, field: "csr" });
    expect(await signer.sign(request)).toMatchObject({ ok: false, status: 400, field: "csr" });
  });

  it("takes its request as untrusted: a malformed one, another tenant's cluster or an unknown cluster is refused without opening a key", async () => {
    const { signer, counting } = countingSigner();
    const csr = await freshCsr();
    expect(await signer.sign({ tenantId: TENANT, cluster: "cluster-1", mesh: meshOf.get("cluster-1"), csr: "not a CSR" } as never)).toMatchObject({
      ok: false,
      status: 400,
      field: "csr",
    });
    expect(await signer.sign({ tenantId: TENANT, cluster: "cluster-1", mesh: meshOf.get("cluster-1"), csr, extra: 1 } as never)).toMatchObject({
      ok: false,
      status: 400,
    });
    expect(await signer.sign({ tenantId: "someone-else", cluster: "cluster-1", mesh: meshOf.get("cluster-1") as string, csr })).toMatchObject({
      ok: false,
      status: 403,
    });
    expect(await signer.sign({ tenantId: TENANT, cluster: "cluster-9", mesh: meshOf.get("cluster-1") as string, csr })).toMatchObject({
      ok: false,
      status: 403,
    });
    expect(counting.opened).toBe(0);
  });
});
