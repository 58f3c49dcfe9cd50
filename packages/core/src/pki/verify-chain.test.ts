import { X509Certificate } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { createCsr } from "./csr";
import { PkiError } from "./errors";
import type { KeyAlgorithm, WebCryptoKeyPair } from "./key-algorithms";
import { generateKeyPair } from "./keys";
import { splitPemBundle } from "./pem";
import { type RootCa, createRootCa } from "./root-ca";
import { signIntermediate } from "./sign-intermediate";
import { DAY, HAS_OPENSSL, HOUR, NOW, SPIFFE_ID, crypto, issueWorkloadCert, makeCert, opensslVerify } from "./test-support";
import { verifyChain } from "./verify-chain";

const WORKLOAD = "spiffe://cluster.local/ns/bookinfo/sa/reviews";

interface Mesh {
  root: RootCa;
  intermediatePem: string;
  intermediateKeys: WebCryptoKeyPair;
}

/** What meshplane and Istio do together: a root, an intermediate from the agent's CSR, a workload cert. */
async function mesh(rootAlgorithm: KeyAlgorithm, intermediateAlgorithm: KeyAlgorithm, name: string): Promise<Mesh> {
  const root = await createRootCa(crypto, { keyAlgorithm: rootAlgorithm, ttlDays: 3650, orgName: "tenant-1", commonName: `${name} root`, now: NOW });
  const intermediateKeys = await generateKeyPair(crypto, intermediateAlgorithm);
  const csrPem = await createCsr(crypto, { keyPair: intermediateKeys, spiffeId: SPIFFE_ID, orgName: `${name}-cluster-1` });
  const { certPem } = await signIntermediate(crypto, {
    csrPem,
    issuer: { certPem: root.certPem, privateKey: root.keyPair.privateKey },
    spiffeId: SPIFFE_ID,
    ttlDays: 365,
    now: NOW,
  });
  return { root, intermediatePem: certPem, intermediateKeys };
}

const workloadOf = (m: Mesh) => issueWorkloadCert({ certPem: m.intermediatePem, ...m.intermediateKeys }, WORKLOAD);

describe("verifyChain: a workload certificate from our intermediate", () => {
  it.each<[KeyAlgorithm, KeyAlgorithm]>([
    ["ECDSA_P256", "ECDSA_P256"],
    ["RSA_2048", "ECDSA_P256"],
    ["ECDSA_P256", "RSA_2048"],
  ])("%s root, %s intermediate: verifies to the root, as Node and openssl agree", async (rootAlgorithm, intermediateAlgorithm) => {
    const m = await mesh(rootAlgorithm, intermediateAlgorithm, "mesh-a");
    const leafPem = await workloadOf(m);
    expect(await verifyChain(crypto, { leafPem, intermediatePems: [m.intermediatePem], rootPems: [m.root.certPem], now: NOW })).toBe(true);
    const leaf = new X509Certificate(leafPem);
    const intermediate = new X509Certificate(m.intermediatePem);
    expect(leaf.checkIssued(intermediate)).toBe(true);
    expect(leaf.verify(intermediate.publicKey)).toBe(true);
    expect(leaf.subjectAltName).toBe(`URI:${WORKLOAD}`);
    if (HAS_OPENSSL) expect(opensslVerify(leafPem, [m.intermediatePem], [m.root.certPem]).output).toContain("OK");
  });
});

describe("verifyChain across meshes and against openssl", () => {
  let a: Mesh;
  let b: Mesh;
  let leafPem: string;
  beforeAll(async () => {
    [a, b] = await Promise.all([mesh("ECDSA_P256", "ECDSA_P256", "mesh-a"), mesh("RSA_2048", "ECDSA_P256", "mesh-b")]);
    leafPem = await workloadOf(a);
  });

  it("verifies a mesh-a workload with a trust bundle holding both meshes' roots", async () => {
    const rootPems = splitPemBundle(`${b.root.certPem}\n${a.root.certPem}`);
    expect(await verifyChain(crypto, { leafPem, intermediatePems: [a.intermediatePem], rootPems, now: NOW })).toBe(true);
    expect(await verifyChain(crypto, { leafPem, intermediatePems: [a.intermediatePem], rootPems: [b.root.certPem], now: NOW })).toBe(false);
  });

  // Each case is checked by openssl too, so a `false` here is the verdict a TLS stack would reach.
  it.each<[string, () => Promise<{ leaf?: string; intermediates?: string[]; roots?: string[]; now?: Date }>]>([
    ["the intermediate is missing", async () => ({ intermediates: [] })],
    ["only the other mesh's root is trusted", async () => ({ roots: [b.root.certPem] })],
    ["the leaf has expired", async () => ({ now: new Date(NOW.getTime() + 2 * DAY) })],
    ["the leaf is not valid yet", async () => ({ now: new Date(NOW.getTime() - 2 * HOUR) })],
    [
      "a lookalike root has the same name and another key",
      async () => {
        const lookalike = await createRootCa(crypto, { keyAlgorithm: "ECDSA_P256", ttlDays: 3650, orgName: "tenant-1", commonName: "mesh-a root", now: NOW });
        return { roots: [lookalike.certPem] };
      },
    ],
    [
      "the issuer is not a CA",
      async () => {
        const notCa = await makeCert({ subject: "O=tenant-1, CN=not a ca", issuer: { certPem: a.root.certPem, keyPair: a.root.keyPair }, ca: false });
        const leaf = await makeCert({ subject: "CN=w", issuer: notCa, ca: false, uriSans: [WORKLOAD] });
        return { leaf: leaf.certPem, intermediates: [notCa.certPem] };
      },
    ],
    [
      "the leaf names another issuer than the one whose key signed it",
      async () => {
        const issuer = { certPem: a.intermediatePem, keyPair: a.intermediateKeys };
        return { leaf: (await makeCert({ subject: "CN=w", issuer, issuerName: "O=elsewhere", ca: false, uriSans: [WORKLOAD] })).certPem };
      },
    ],
    [
      "our pathLen 0 intermediate signed another CA",
      async () => {
        const sub = await makeCert({ subject: "O=rogue, CN=sub CA", issuer: { certPem: a.intermediatePem, keyPair: a.intermediateKeys }, ca: true });
        const leaf = await makeCert({ subject: "CN=w", issuer: sub, ca: false, uriSans: [WORKLOAD] });
        return { leaf: leaf.certPem, intermediates: [sub.certPem, a.intermediatePem] };
      },
    ],
  ])("refuses when %s", async (_name, makeCase) => {
    const c = await makeCase();
    const input = {
      leafPem: c.leaf ?? leafPem,
      intermediatePems: c.intermediates ?? [a.intermediatePem],
      rootPems: c.roots ?? [a.root.certPem],
      now: c.now ?? NOW,
    };
    expect(await verifyChain(crypto, input)).toBe(false);
    if (HAS_OPENSSL) expect(opensslVerify(input.leafPem, input.intermediatePems, input.rootPems, input.now).ok).toBe(false);
  });

  it("finds the right intermediate when an old and a new one share a name (rotation)", async () => {
    const newKeys = await generateKeyPair(crypto, "ECDSA_P256");
    const csrPem = await createCsr(crypto, { keyPair: newKeys, spiffeId: SPIFFE_ID, orgName: "mesh-a-cluster-1" });
    const issuer = { certPem: a.root.certPem, privateKey: a.root.keyPair.privateKey };
    const rotated = (await signIntermediate(crypto, { csrPem, issuer, spiffeId: SPIFFE_ID, ttlDays: 365, now: NOW })).certPem;
    const newLeaf = await issueWorkloadCert({ certPem: rotated, ...newKeys }, WORKLOAD);
    for (const intermediatePems of [
      [a.intermediatePem, rotated],
      [rotated, a.intermediatePem],
    ]) {
      expect(await verifyChain(crypto, { leafPem: newLeaf, intermediatePems, rootPems: [a.root.certPem], now: NOW })).toBe(true);
    }
  });

  it.each([
    ["leafPem", () => ({ leafPem: "garbage" })],
    ["rootPems[1]", () => ({ rootPems: [a.root.certPem, "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"] })],
  ])("throws a PkiError naming %s when it does not parse", async (field, override) => {
    const input = { leafPem, intermediatePems: [a.intermediatePem], rootPems: [a.root.certPem], now: NOW, ...override() };
    const error = await verifyChain(crypto, input).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PkiError);
    expect(error).toMatchObject({ field });
  });
});
