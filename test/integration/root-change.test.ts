/**
 * Changing a VirtualMesh's root (docs/shared-trust.md, "Changing the root"), against DynamoDB Local
 * and the SQS emulator: an edit that would change the root members trust is the admin's, and the
 * admin's edit moves to the new root in phases — at every step, each mesh's intermediate chains to a
 * root that every member trusts.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CertificateDirective, type CertificateResult, createCsr, fingerprintSha256, generateKeyPair, splitPemBundle } from "@meshplane/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ControlPlaneClient } from "../../packages/agent/src/control-plane/client";
import { discoveryOf, registeredAgent } from "../support/agents";
import { type ControlPlane, startControlPlane } from "../support/control-plane";

const TENANT = "roots";
const CLUSTERS = ["cluster-1", "cluster-2"] as const;

let cp: ControlPlane;
let admin: string;
let editor: string;
const agents = new Map<string, ControlPlaneClient>();
let meshes: string[] = [];
/** What each mesh holds, as its agent wrote it: the chain up to its root, and the roots it trusts. */
const held = new Map<string, { chain: string[]; bundle: string[] }>();

const virtualMesh = (root: object | undefined) => ({
  apiVersion: "meshplane.dev/v1",
  kind: "VirtualMesh",
  metadata: { name: "corp" },
  spec: {
    meshes: meshes.map((name) => ({ name })),
    ...(root === undefined
      ? {}
      : { mtlsConfig: { shared: { rootCertificateAuthority: root, intermediateCertOptions: { ttlDays: 30, rotateBeforeDays: 5 } } } }),
    federation: { selectors: [{}] },
  },
});
const GENERATED = { generated: { keyAlgorithm: "ECDSA_P256" } };
const EXTERNAL = { external: {} };

type Ca = {
  kind: string;
  state: string;
  phase: string;
  issuer?: string;
  trustBundle: string[];
  roots: { fingerprint: string }[];
  awaitingCertificate?: boolean;
};
const ca = async (): Promise<Ca> => (await (await cp.request("GET", "/v1/virtualmeshes/corp/ca", { token: admin })).json()) as Ca;

/** The agent's certificate stage for one cluster: a fresh key, its CSR signed, the result reported. */
async function follow(cluster: string): Promise<void> {
  const client = agents.get(cluster) as ControlPlaneClient;
  const directive = (await cp.store.snapshots.head(TENANT, cluster, true))?.directives?.[0] as CertificateDirective;
  const now = held.get(directive.mesh);
  if (now !== undefined && fingerprintSha256(now.chain[1] as string) === directive.issuer && now.bundle.join() === directive.trustBundle.join()) return;
  const keyPair = await generateKeyPair(globalThis.crypto, directive.keyAlgorithm);
  const answer = await client.csr({ mesh: directive.mesh, csr: await createCsr(globalThis.crypto, { keyPair, spiffeId: directive.identity }) });
  const bundle = splitPemBundle(answer.rootBundle).map(fingerprintSha256).sort();
  held.set(directive.mesh, { chain: splitPemBundle(answer.certChain), bundle });
  const result: CertificateResult = { mesh: directive.mesh, state: "issued", issuer: answer.issuer, trustBundle: bundle, notAfter: answer.notAfter };
  const generation = (await cp.store.snapshots.head(TENANT, cluster, true))?.snapshot?.generation ?? 0;
  await client.status({ generation, results: [], certificates: [result] });
}

/** Every mesh's chain ends in a root that every mesh trusts: calls between any two complete the handshake. */
function expectMutualTrust(when: string) {
  for (const [from, a] of held) {
    const root = fingerprintSha256(a.chain.at(-1) as string);
    for (const [to, b] of held) expect(b.bundle, `${when}: ${to} trusts the root of ${from}`).toContain(root);
  }
}

/** Moves every cluster, one at a time, until the CA is STABLE again; returns the phases seen. */
async function rotateThrough(): Promise<string[]> {
  const phases: string[] = [];
  for (let step = 0; step < 8; step++) {
    const { phase } = await ca();
    if (phases.at(-1) !== phase) phases.push(phase);
    expectMutualTrust(phase);
    if (phase === "STABLE") break;
    for (const cluster of CLUSTERS) {
      await follow(cluster);
      await cp.work();
      expectMutualTrust(`${phase}, after ${cluster} moved`);
    }
  }
  return phases;
}

beforeAll(async () => {
  cp = await startControlPlane();
  admin = await cp.tenant(TENANT);
  const created = await cp.request("POST", "/v1/tokens", { token: admin, body: { name: "ci", role: "editor" } });
  editor = ((await created.json()) as { token: string }).token;
  for (const cluster of CLUSTERS) {
    const { client } = await registeredAgent(cp, admin, TENANT, cluster);
    agents.set(cluster, client);
    await client.discovery(discoveryOf("istio-bookinfo", cluster));
  }
  await cp.work();
  const list = (await (await cp.request("GET", "/v1/meshes", { token: admin })).json()) as { items: { metadata: { name: string } }[] };
  meshes = list.items.map((m) => m.metadata.name);
  expect(meshes).toHaveLength(2);
  expect((await cp.request("POST", "/v1/virtualmeshes", { token: admin, body: virtualMesh(GENERATED) })).status).toBe(201);
  await cp.work();
  for (const cluster of CLUSTERS) await follow(cluster);
  await cp.work();
  expectMutualTrust("issued");
});
afterAll(() => cp.stop());

describe("a root-changing edit", () => {
  it("is refused to an editor, naming the field, by PUT and by apply; the CA is left as it was", async () => {
    const before = await ca();
    const put = async (root: object | undefined) => cp.request("PUT", "/v1/virtualmeshes/corp", { token: editor, body: virtualMesh(root) });
    const toExternal = await put(EXTERNAL);
    expect(toExternal.status).toBe(403);
    expect(((await toExternal.json()) as { detail: string }).detail).toMatch(/^spec\.mtlsConfig\.shared\.rootCertificateAuthority: .*admin role/);
    const dropped = await put(undefined);
    expect(dropped.status).toBe(403);
    expect(((await dropped.json()) as { detail: string }).detail).toMatch(/^spec\.mtlsConfig: /);
    const applied = await cp.request("POST", "/v1/apply", { token: editor, body: { documents: [virtualMesh(EXTERNAL)] } });
    expect(applied.status).toBe(403);
    // An edit that keeps the root is the editor's to make.
    const kept = { ...virtualMesh(GENERATED), metadata: { name: "corp", labels: { team: "payments" } } };
    expect((await cp.request("PUT", "/v1/virtualmeshes/corp", { token: editor, body: kept })).status).toBe(200);
    await cp.work();
    expect(await ca()).toEqual(before);
  });

  it("by an admin, moves to your own root in phases: the generated root signs until your CA's certificate is uploaded", async () => {
    const generated = await ca();
    expect((await cp.request("PUT", "/v1/virtualmeshes/corp", { token: admin, body: virtualMesh(EXTERNAL) })).status).toBe(200);
    await cp.work();
    const waiting = await ca();
    expect(waiting).toMatchObject({
      kind: "external",
      state: "READY",
      phase: "STABLE",
      issuer: generated.issuer,
      trustBundle: generated.trustBundle,
      awaitingCertificate: true,
    });
    const status = ((await (await cp.request("GET", "/v1/virtualmeshes/corp", { token: admin })).json()) as { status: { state: string } }).status;
    expect(status.state).toBe("ACCEPTED");
    for (const cluster of CLUSTERS) await follow(cluster);
    expectMutualTrust("waiting for the certificate");

    const dir = mkdtempSync(join(tmpdir(), "root-change-"));
    const openssl = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
    const { csr } = (await (await cp.request("GET", "/v1/virtualmeshes/corp/ca/csr", { token: admin })).json()) as { csr: string };
    writeFileSync(join(dir, "signing.csr"), csr);
    openssl(
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:P-256",
      "-nodes",
      "-keyout",
      "root.key",
      "-out",
      "root.pem",
      "-days",
      "3650",
      "-subj",
      "/O=corp/CN=corp root",
      "-addext",
      "basicConstraints=critical,CA:TRUE",
      "-addext",
      "keyUsage=critical,keyCertSign,cRLSign",
    );
    openssl(
      "x509",
      "-req",
      "-in",
      "signing.csr",
      "-CA",
      "root.pem",
      "-CAkey",
      "root.key",
      "-CAcreateserial",
      "-out",
      "signing.pem",
      "-days",
      "365",
      "-copy_extensions",
      "copyall",
    );
    const chain = readFileSync(join(dir, "signing.pem"), "utf8") + readFileSync(join(dir, "root.pem"), "utf8");
    expect((await cp.request("PUT", "/v1/virtualmeshes/corp/ca/certificate", { token: admin, body: { certificateChain: chain } })).status).toBe(200);
    await cp.work();
    expect(await rotateThrough()).toEqual(["ADDING_ROOT", "SWITCHING", "DROPPING", "STABLE"]);
    expect((await ca()).roots.map((r) => r.fingerprint)).toEqual([fingerprintSha256(readFileSync(join(dir, "root.pem"), "utf8"))]);
  });

  it("by an admin, moves back to a generated root in phases", async () => {
    const own = await ca();
    expect((await cp.request("PUT", "/v1/virtualmeshes/corp", { token: admin, body: virtualMesh(GENERATED) })).status).toBe(200);
    await cp.work();
    const adding = await ca();
    expect(adding).toMatchObject({ kind: "generated", phase: "ADDING_ROOT", issuer: own.issuer });
    expect(adding.roots.map((r) => r.fingerprint)[0]).toBe(own.roots[0]?.fingerprint);
    expect(await rotateThrough()).toEqual(["ADDING_ROOT", "SWITCHING", "DROPPING", "STABLE"]);
    const done = await ca();
    expect(done.roots).toHaveLength(1);
    expect(done.roots[0]?.fingerprint).not.toBe(own.roots[0]?.fingerprint);
  });

  it("by an admin, dropping shared trust keeps the CA, so asking again continues with the same root", async () => {
    const before = await ca();
    expect((await cp.request("PUT", "/v1/virtualmeshes/corp", { token: admin, body: virtualMesh(undefined) })).status).toBe(200);
    await cp.work();
    expect((await cp.request("PUT", "/v1/virtualmeshes/corp", { token: admin, body: virtualMesh(GENERATED) })).status).toBe(200);
    await cp.work();
    expect((await ca()).roots).toEqual(before.roots);
  });
});
