/**
 * Shared trust against real parts: DynamoDB Local, the SQS emulator, the HTTP API and worker, the
 * agent's client, and Istio's own CA code (the judge) loading the `cacerts` each mesh would get.
 * A VirtualMesh with a generated root gets a CA; agents get intermediates only for the identity
 * their directive names; a root rotation moves phase by phase as agents report, and at every phase
 * a workload certificate from each mesh verifies against every other mesh's trust bundle.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ScanCommand } from "@aws-sdk/lib-dynamodb";
import {
  type CertificateDirective,
  type CertificateResult,
  type SnapshotPayload,
  certificateInfo,
  createCsr,
  exportPrivateKeyPem,
  fingerprintSha256,
  generateKeyPair,
  snapshotAudience,
  splitPemBundle,
  verifySnapshot,
} from "@meshplane/core";
import type { JWK } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ControlPlaneClient } from "../../packages/agent/src/control-plane/client";
import { judgeCa } from "../istio/judge";
import { discoveryOf, registeredAgent } from "../support/agents";
import { type ControlPlane, startControlPlane } from "../support/control-plane";

const TENANT = "trust";
const CLUSTERS = ["cluster-1", "cluster-2"] as const;
const meshOf = (cluster: string) => `istiod-istio--system-${cluster}`;

let cp: ControlPlane;
let admin: string;
let jwks: { keys: JWK[] };
const agents = new Map<string, ControlPlaneClient>();
const generations = new Map<string, number>();
/** What each cluster's agent verifies snapshots against: tenant, cluster and the incarnation it registered with. */
const audiences = new Map<string, string>();
/** What each mesh's agent wrote as `cacerts`, like the agent does. */
const cacerts = new Map<string, { caCert: string; caKey: string; certChain: string; rootCert: string }>();

const virtualMesh = (name: string, root: object) => ({
  apiVersion: "meshplane.dev/v1",
  kind: "VirtualMesh",
  metadata: { name },
  spec: {
    meshes: CLUSTERS.map((c) => ({ name: meshOf(c) })),
    mtlsConfig: { shared: { rootCertificateAuthority: root, intermediateCertOptions: { ttlDays: 30, rotateBeforeDays: 5 } } },
    federation: { selectors: [{}] },
  },
});

async function directiveOf(cluster: string): Promise<CertificateDirective | undefined> {
  const answer = await (agents.get(cluster) as ControlPlaneClient).snapshot();
  if (!answer.changed || !answer.jws) return undefined;
  const payload: SnapshotPayload = await verifySnapshot(answer.jws, {
    trustedKeys: jwks.keys,
    audience: audiences.get(cluster) as string,
    lastGeneration: generations.get(cluster) ?? 0,
    now: new Date(),
  });
  generations.set(cluster, payload.generation);
  return payload.certificates[0] as unknown as CertificateDirective | undefined;
}

/** Plays the agent's certificate stage for one cluster: CSR, check, write cacerts, report. */
async function issue(cluster: string, directive: CertificateDirective): Promise<CertificateResult> {
  const client = agents.get(cluster) as ControlPlaneClient;
  const keyPair = await generateKeyPair(globalThis.crypto, directive.keyAlgorithm);
  const csr = await createCsr(globalThis.crypto, { keyPair, spiffeId: directive.identity });
  const answer = await client.csr({ mesh: directive.mesh, csr });
  const [caCert] = splitPemBundle(answer.certChain) as [string];
  cacerts.set(directive.mesh, {
    caCert,
    caKey: await exportPrivateKeyPem(globalThis.crypto, keyPair.privateKey),
    certChain: answer.certChain,
    rootCert: answer.rootBundle,
  });
  return {
    mesh: directive.mesh,
    state: "issued",
    issuer: answer.issuer,
    trustBundle: splitPemBundle(answer.rootBundle).map(fingerprintSha256).sort(),
    notAfter: answer.notAfter,
  };
}

async function report(cluster: string, certificates: CertificateResult[]): Promise<void> {
  await (agents.get(cluster) as ControlPlaneClient).status({ generation: generations.get(cluster) ?? 0, results: [], certificates });
}

/** Istio's CA loads each mesh's cacerts and issues a workload certificate; each verifies against every bundle. */
function crossVerify() {
  const out = judgeCa(
    [...cacerts].map(([mesh, files]) => ({ name: mesh, ...files, workloadIdentity: `spiffe://cluster.local/ns/bookinfo/sa/${mesh}-workload` })),
  );
  for (const [mesh, result] of Object.entries(out.meshes)) expect(result.error, `${mesh}: istiod loads cacerts`).toBeUndefined();
  return out.verify;
}

async function vmStatus(name: string) {
  return (
    (await (await cp.request("GET", `/v1/virtualmeshes/${name}`, { token: admin })).json()) as {
      status: { state: string; meshes: Record<string, { state: string; trust?: { state: string; phase?: string } }> };
    }
  ).status;
}

beforeAll(async () => {
  cp = await startControlPlane();
  admin = await cp.tenant(TENANT);
  for (const cluster of CLUSTERS) {
    const { client, incarnation } = await registeredAgent(cp, admin, TENANT, cluster);
    agents.set(cluster, client);
    audiences.set(cluster, snapshotAudience(TENANT, cluster, incarnation));
    await client.discovery(discoveryOf("istio-bookinfo", cluster));
  }
  jwks = (await (await cp.request("GET", "/.well-known/jwks.json")).json()) as { keys: JWK[] };
  await cp.work();
});
afterAll(() => cp.stop());

describe("a generated root: issue, refuse, rotate", () => {
  it("makes the CA on translation, sends directives, and is PENDING until the agents issue", async () => {
    expect(
      (
        await cp.request("POST", "/v1/virtualmeshes", {
          token: admin,
          body: virtualMesh("bookinfo", { generated: { keyAlgorithm: "ECDSA_P256", ttlDays: 3650 } }),
        })
      ).status,
    ).toBe(201);
    await cp.work();
    const ca = (await (await cp.request("GET", "/v1/virtualmeshes/bookinfo/ca", { token: admin })).json()) as {
      phase: string;
      trustBundle: string[];
      issuer: string;
    };
    expect(ca).toMatchObject({ phase: "STABLE", state: "READY", kind: "generated" });
    expect(ca.trustBundle).toEqual([ca.issuer]);
    const raw = await (await cp.request("GET", "/v1/virtualmeshes/bookinfo/ca", { token: admin })).text();
    expect(raw).toContain("BEGIN CERTIFICATE");
    expect(raw).not.toContain("PRIVATE KEY");
    expect(raw).not.toContain("wrappedKey");
    const status = await vmStatus("bookinfo");
    expect(status.state).toBe("PENDING");
    expect(status.meshes[meshOf("cluster-1")]?.trust?.state).toBe("PENDING");
    for (const cluster of CLUSTERS) {
      const directive = await directiveOf(cluster);
      expect(directive).toMatchObject({
        mesh: meshOf(cluster),
        identity: "spiffe://cluster.local/ns/istio-system/sa/istiod",
        issuer: ca.issuer,
        trustBundle: ca.trustBundle,
      });
    }
  });

  it("refuses CSRs for another identity, another mesh, bad PEM, a deeper CA, and a replay — nothing issued", async () => {
    const client = agents.get("cluster-1") as ControlPlaneClient;
    const keyPair = await generateKeyPair(globalThis.crypto, "ECDSA_P256");
    const good = await createCsr(globalThis.crypto, { keyPair, spiffeId: "spiffe://cluster.local/ns/istio-system/sa/istiod" });
    const post = async (body: unknown) =>
      (
        await fetch(`${cp.url}/v1/agent/csr`, {
          method: "POST",
          headers: { authorization: `Bearer ${await client.token()}`, "content-type": "application/json" },
          body: JSON.stringify(body),
        })
      ).status;
    expect(
      await post({
        mesh: meshOf("cluster-1"),
        csr: await createCsr(globalThis.crypto, { keyPair, spiffeId: "spiffe://cluster.local/ns/bookinfo/sa/productpage" }),
      }),
    ).toBe(400);
    expect(await post({ mesh: meshOf("cluster-2"), csr: good })).toBe(403);
    expect(await post({ mesh: meshOf("cluster-1"), csr: "-----BEGIN CERTIFICATE REQUEST-----\nnot-base64!\n-----END CERTIFICATE REQUEST-----\n" })).toBe(400);
    expect(
      await post({
        mesh: meshOf("cluster-1"),
        csr: await createCsr(globalThis.crypto, { keyPair, spiffeId: "spiffe://cluster.local/ns/istio-system/sa/istiod", pathLen: 3 }),
      }),
    ).toBe(400);
    expect(await post({ mesh: meshOf("cluster-1"), csr: good })).toBe(200);
    expect(await post({ mesh: meshOf("cluster-1"), csr: good })).toBe(409);
    expect(cp.logs.filter((l) => l.includes("CSR refused")).length).toBeGreaterThanOrEqual(3);
  });

  it("issues intermediates Istio's CA loads; the VirtualMesh becomes ACCEPTED with trust ISSUED", async () => {
    for (const cluster of CLUSTERS)
      await report(cluster, [await issue(cluster, (await cp.store.snapshots.head(TENANT, cluster, true))?.directives?.[0] as CertificateDirective)]);
    await cp.work();
    const status = await vmStatus("bookinfo");
    expect(status.state).toBe("ACCEPTED");
    expect(Object.values(status.meshes).map((m) => m.trust?.state)).toEqual(["ISSUED", "ISSUED"]);
    const verify = crossVerify();
    expect(verify).toHaveLength(4);
    expect(verify.filter((v) => !v.ok)).toEqual([]);
    const cluster = (await (await cp.request("GET", "/v1/clusters/cluster-1", { token: admin })).json()) as { certificates?: CertificateResult[] };
    expect(cluster.certificates).toEqual([expect.objectContaining({ mesh: meshOf("cluster-1"), state: "issued", notAfter: expect.any(String) })]);
    const intermediate = certificateInfo(cacerts.get(meshOf("cluster-1"))?.caCert as string);
    expect(intermediate.isCa).toBe(true);
    expect(intermediate.uriSans).toEqual(["spiffe://cluster.local/ns/istio-system/sa/istiod"]);
  });

  it("rotates the root in phases; at every phase each mesh's workloads verify against every other mesh's bundle", async () => {
    const phases: { phase: string; verified: number; failed: number; at: number }[] = [];
    const started = Date.now();
    expect((await cp.request("POST", "/v1/virtualmeshes/bookinfo/ca/rotate", { token: admin })).status).toBe(202);
    await cp.work();
    // Move one cluster at a time, so meshes sit in different phases, as they will in real clusters.
    for (let step = 0; step < 8; step++) {
      const ca = (await (await cp.request("GET", "/v1/virtualmeshes/bookinfo/ca", { token: admin })).json()) as { phase: string };
      const verify = crossVerify();
      phases.push({ phase: ca.phase, verified: verify.filter((v) => v.ok).length, failed: verify.filter((v) => !v.ok).length, at: Date.now() - started });
      expect(
        verify.filter((v) => !v.ok),
        `phase ${ca.phase}`,
      ).toEqual([]);
      if (ca.phase === "STABLE" && step > 0) break;
      for (const cluster of CLUSTERS) {
        const head = await cp.store.snapshots.head(TENANT, cluster, true);
        const directive = head?.directives?.[0] as CertificateDirective;
        const held = cacerts.get(directive.mesh);
        const bundle = splitPemBundle(held?.rootCert ?? "")
          .map(fingerprintSha256)
          .sort();
        const issuer = fingerprintSha256(splitPemBundle(held?.certChain ?? "")[1] as string);
        if (issuer !== directive.issuer || bundle.join() !== directive.trustBundle.join()) {
          await report(cluster, [await issue(cluster, directive)]);
          await cp.work();
          expect(
            crossVerify().filter((v) => !v.ok),
            `after ${cluster} moved in ${ca.phase}`,
          ).toEqual([]);
        }
      }
    }
    expect(phases.map((p) => p.phase)).toEqual(["ADDING_ROOT", "SWITCHING", "DROPPING", "STABLE"]);
    const ca = (await (await cp.request("GET", "/v1/virtualmeshes/bookinfo/ca", { token: admin })).json()) as { roots: unknown[] };
    expect(ca.roots).toHaveLength(1);
    writeFileSync(join(tmpdir(), "meshplane-rotation-figures.json"), JSON.stringify(phases));
  });

  it("never stores or logs a private key in clear", async () => {
    const scan = await scanAll(cp);
    expect(scan).toContain("wrappedKey");
    expect(scan).not.toContain("PRIVATE KEY");
    expect(scan).not.toMatch(/MIG[0-9A-Za-z+/]{40}/); // the DER of a PKCS#8 key, base64 without its PEM armour
    expect(cp.logs.join("\n")).not.toContain("PRIVATE KEY");
    for (const files of cacerts.values()) expect(scan).not.toContain(files.caKey.split("\n")[1]);
  });
});

describe("bring your own PKI", () => {
  const dir = mkdtempSync(join(tmpdir(), "byo-"));
  const openssl = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: ["ignore", "pipe", "pipe"] }).toString();

  it("publishes a CSR, refuses a chain that does not match it, and issues once a valid chain is uploaded", async () => {
    expect((await cp.request("DELETE", "/v1/virtualmeshes/bookinfo", { token: admin })).status).toBe(200);
    await cp.work();
    expect(await cp.store.cas.get(TENANT, "bookinfo")).toBeUndefined();
    expect((await cp.request("POST", "/v1/virtualmeshes", { token: admin, body: virtualMesh("corp", { external: {} }) })).status).toBe(201);
    await cp.work();
    expect((await vmStatus("corp")).meshes[meshOf("cluster-1")]?.trust?.state).toBe("PENDING");
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
    // Another key's certificate: refused, nothing stored.
    openssl(
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:P-256",
      "-nodes",
      "-keyout",
      "other.key",
      "-out",
      "other.pem",
      "-days",
      "30",
      "-subj",
      "/CN=other",
      "-addext",
      "basicConstraints=critical,CA:TRUE",
    );
    const put = (chain: string) => cp.request("PUT", "/v1/virtualmeshes/corp/ca/certificate", { token: admin, body: { certificateChain: chain } });
    const refused = await put(readFileSync(join(dir, "other.pem"), "utf8"));
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { errors: { path: string }[] }).errors[0]?.path).toBe("certificateChain");
    expect((await cp.store.cas.get(TENANT, "corp"))?.state).toBe("AWAITING_CERTIFICATE");
    const accepted = await put(readFileSync(join(dir, "signing.pem"), "utf8") + readFileSync(join(dir, "root.pem"), "utf8"));
    expect(accepted.status).toBe(200);
    await cp.work();
    cacerts.clear();
    for (const cluster of CLUSTERS) {
      const directive = (await cp.store.snapshots.head(TENANT, cluster, true))?.directives?.[0] as CertificateDirective;
      expect(directive.trustBundle).toEqual([fingerprintSha256(readFileSync(join(dir, "root.pem"), "utf8"))]);
      await report(cluster, [await issue(cluster, directive)]);
    }
    await cp.work();
    expect((await vmStatus("corp")).state).toBe("ACCEPTED");
    expect(crossVerify().filter((v) => !v.ok)).toEqual([]);
    // The intermediate chains through meshplane's signing CA to the user's root, which meshplane never saw the key of.
    expect(splitPemBundle(cacerts.get(meshOf("cluster-1"))?.certChain as string)).toHaveLength(3);
  });
});

async function scanAll(plane: ControlPlane): Promise<string> {
  const out: unknown[] = [];
  let start: Record<string, unknown> | undefined;
  const doc = (
    plane.store as unknown as { cas: { deps: { doc: { send: (c: unknown) => Promise<{ Items?: unknown[]; LastEvaluatedKey?: Record<string, unknown> }> } } } }
  ).cas.deps.doc;
  do {
    const page = await doc.send(new ScanCommand({ TableName: plane.table, ...(start ? { ExclusiveStartKey: start } : {}) }));
    out.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return JSON.stringify(out);
}
