import { X509Certificate } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { certificateInfo } from "./certificate-info";
import { createCsr } from "./csr";
import { PkiError } from "./errors";
import type { KeyAlgorithm, WebCryptoKey, WebCryptoKeyPair } from "./key-algorithms";
import { generateKeyPair } from "./keys";
import { type RootCa, createRootCa } from "./root-ca";
import { type SignIntermediateOptions, signIntermediate } from "./sign-intermediate";
import { DAY, HAS_OPENSSL, HOUR, NOW, SLOW, SPIFFE_ID, crypto, makeCert, opensslText, opensslVerify, tamperPem } from "./test-support";
import * as x509 from "./x509";

const rootOf = (keyAlgorithm: KeyAlgorithm, ttlDays = 3650) =>
  createRootCa(crypto, { keyAlgorithm, ttlDays, orgName: "tenant-1", commonName: "mesh-a root", now: NOW });

const sign = (root: RootCa, csrPem: string, override: Partial<SignIntermediateOptions> = {}) =>
  signIntermediate(crypto, {
    csrPem,
    issuer: { certPem: root.certPem, privateKey: root.keyPair.privateKey },
    spiffeId: SPIFFE_ID,
    ttlDays: 365,
    now: NOW,
    ...override,
  });

// Root and intermediate algorithms mixed, since the signature follows the issuer's key, not the CSR's.
const PAIRS: [KeyAlgorithm, KeyAlgorithm, string][] = [
  ["ECDSA_P256", "ECDSA_P256", "ecdsa-with-SHA256"],
  ["RSA_2048", "ECDSA_P256", "sha256WithRSAEncryption"],
  ["ECDSA_P256", "RSA_2048", "ecdsa-with-SHA256"],
  ["RSA_4096", "RSA_4096", "sha256WithRSAEncryption"],
];

const uris = (...values: string[]) => new x509.SubjectAlternativeNameExtension(values.map((value) => ({ type: "url" as const, value })));

// RSA 4096 keys take seconds to generate, so each pair's root and intermediate are made once and
// shared by the Node and the openssl test.
const issued = new Map<string, Promise<{ root: RootCa; certPem: string }>>();
function issuedFor(rootAlgorithm: KeyAlgorithm, intermediateAlgorithm: KeyAlgorithm) {
  const key = `${rootAlgorithm}/${intermediateAlgorithm}`;
  const made =
    issued.get(key) ??
    (async () => {
      const root = await rootOf(rootAlgorithm);
      const keyPair = await generateKeyPair(crypto, intermediateAlgorithm);
      const csrPem = await createCsr(crypto, { keyPair, spiffeId: SPIFFE_ID, orgName: "cluster-1" });
      const { certPem } = await sign(root, csrPem, { commonName: "cluster-1 intermediate" });
      return { root, certPem };
    })();
  issued.set(key, made);
  return made;
}

describe("signIntermediate", () => {
  it.each(PAIRS)(
    "%s root, %s intermediate: Node sees a CA issued by the root",
    async (rootAlgorithm, intermediateAlgorithm) => {
      const { root, certPem } = await issuedFor(rootAlgorithm, intermediateAlgorithm);
      const cert = new X509Certificate(certPem);
      const issuer = new X509Certificate(root.certPem);
      expect(cert.checkIssued(issuer)).toBe(true);
      expect(cert.verify(issuer.publicKey)).toBe(true);
      expect(cert.ca).toBe(true);
      expect(cert.subjectAltName).toBe(`URI:${SPIFFE_ID}`);
      expect(cert.subject).toBe("O=cluster-1\nCN=cluster-1 intermediate");
      expect(new Date(cert.validFrom)).toEqual(new Date(NOW.getTime() - HOUR));
      expect(new Date(cert.validTo)).toEqual(new Date(NOW.getTime() + 365 * DAY));
    },
    SLOW,
  );

  it.skipIf(!HAS_OPENSSL).each(PAIRS)(
    "%s root, %s intermediate: openssl verifies it strictly and sees each extension",
    async (rootAlgorithm, intermediateAlgorithm, signature) => {
      const { root, certPem } = await issuedFor(rootAlgorithm, intermediateAlgorithm);
      expect(opensslVerify(certPem, [], [root.certPem])).toEqual({ ok: true, output: expect.stringContaining("OK") });
      const text = opensslText(certPem);
      expect(text).toContain(`Signature Algorithm: ${signature}`);
      expect(text).toMatch(/Basic Constraints: critical\s+CA:TRUE, pathlen:0/);
      expect(text).toMatch(/Key Usage: critical\s+Digital Signature, Certificate Sign, CRL Sign/);
      expect(text).toContain(`URI:${SPIFFE_ID}`);
      const rootKeyId = /Subject Key Identifier:\s+([0-9A-F:]+)/.exec(opensslText(root.certPem))?.[1];
      expect(rootKeyId).toBeDefined();
      expect(text).toMatch(new RegExp(`Authority Key Identifier:\\s+(keyid:)?${rootKeyId}`));
      expect(text).toMatch(/Subject Key Identifier:\s+[0-9A-F:]+/);
    },
    SLOW,
  );

  describe("refuses what the CSR may not ask for", () => {
    let root: RootCa;
    let keyPair: WebCryptoKeyPair;
    beforeAll(async () => {
      root = await rootOf("ECDSA_P256");
      keyPair = await generateKeyPair(crypto, "ECDSA_P256");
    });
    const rawCsr = async (extensions: x509.Extension[]) =>
      (
        await x509.Pkcs10CertificateRequestGenerator.create(
          { name: "O=c", keys: keyPair, signingAlgorithm: { name: "ECDSA", hash: "SHA-256" }, extensions },
          crypto,
        )
      ).toString("pem");
    const caTrue = new x509.BasicConstraintsExtension(true, undefined, true);

    it.each<[string, () => Promise<string>, string, RegExp]>([
      [
        "another SPIFFE ID",
        () => createCsr(crypto, { keyPair, spiffeId: "spiffe://cluster.local/ns/istio-system/sa/istiod-cluster-2" }),
        "csr.uriSans",
        /requests \[spiffe:\/\/cluster\.local\/ns\/istio-system\/sa\/istiod-cluster-2\], only \[spiffe:\/\/cluster\.local\/ns\/istio-system\/sa\/istiod-cluster-1\] is allowed/,
      ],
      [
        "an extra URI SAN",
        () => rawCsr([caTrue, uris(SPIFFE_ID, "spiffe://cluster.local/ns/default/sa/admin")]),
        "csr.uriSans",
        /requests \[.+, spiffe:\/\/cluster\.local\/ns\/default\/sa\/admin\]/,
      ],
      ["no URI SAN", () => rawCsr([caTrue]), "csr.uriSans", /requests \[\], only/],
      [
        "a DNS SAN",
        () =>
          rawCsr([
            caTrue,
            new x509.SubjectAlternativeNameExtension([
              { type: "url", value: SPIFFE_ID },
              { type: "dns", value: "evil.example" },
            ]),
          ]),
        "csr.subjectAltName",
        /\[dns:evil\.example\]/,
      ],
      ["pathLen 1", () => createCsr(crypto, { keyPair, spiffeId: SPIFFE_ID, pathLen: 1 }), "csr.basicConstraints", /requests pathLen 1, at most 0 is allowed/],
      ["a non-CA certificate", () => rawCsr([new x509.BasicConstraintsExtension(false), uris(SPIFFE_ID)]), "csr.basicConstraints", /does not request a CA/],
      [
        "a tampered signature",
        async () => tamperPem(await createCsr(crypto, { keyPair, spiffeId: SPIFFE_ID }), -1, "CERTIFICATE REQUEST"),
        "csr.signature",
        /does not verify/,
      ],
    ])("%s", async (_name, csrPem, field, message) => {
      const error = await sign(root, await csrPem()).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(PkiError);
      expect(error).toMatchObject({ field, message: expect.stringMatching(message) });
    });

    it("accepts a CSR that asks for pathLen 0 itself", async () => {
      const { certPem } = await sign(root, await createCsr(crypto, { keyPair, spiffeId: SPIFFE_ID, pathLen: 0 }));
      expect(certificateInfo(certPem).pathLen).toBe(0);
    });
  });

  it("never outlives its issuer", async () => {
    const root = await rootOf("ECDSA_P256", 30);
    const csrPem = await createCsr(crypto, { keyPair: await generateKeyPair(crypto, "ECDSA_P256"), spiffeId: SPIFFE_ID });
    const { certPem } = await sign(root, csrPem, { ttlDays: 365 });
    expect(certificateInfo(certPem).notAfter).toEqual(certificateInfo(root.certPem).notAfter);
    expect(new X509Certificate(certPem).validTo).toBe(new X509Certificate(root.certPem).validTo);
  });

  it("copies only O from the CSR's subject, and takes the issuer's O when the CSR has none", async () => {
    const root = await rootOf("ECDSA_P256");
    const keyPair = await generateKeyPair(crypto, "ECDSA_P256");
    const withCn = await createCsr(crypto, { keyPair, spiffeId: SPIFFE_ID, orgName: "cluster-1", commonName: "I am the root" });
    expect(certificateInfo((await sign(root, withCn)).certPem).subject).toBe("O=cluster-1");
    const bare = await createCsr(crypto, { keyPair, spiffeId: SPIFFE_ID });
    expect(certificateInfo((await sign(root, bare)).certPem).subject).toBe("O=tenant-1");
  });

  describe("refuses an issuer that cannot sign this", () => {
    it.each<[string, () => Promise<Issuer>, string, RegExp]>([
      ["a leaf certificate", leafIssuer, "issuer.certPem", /is not a CA/],
      [
        "an expired root",
        async () => ({ ...rootIssuer(await rootOf("ECDSA_P256", 1)), now: new Date(NOW.getTime() + 2 * DAY) }),
        "issuer.certPem",
        /expired at/,
      ],
      ["an intermediate with pathLen 0", intermediateIssuer, "issuer.certPem", /has pathLen 0 but 1 CA certificate\(s\) must follow it/],
      [
        "a key that is not the certificate's",
        async () => ({ ...rootIssuer(await rootOf("ECDSA_P256")), privateKey: (await generateKeyPair(crypto, "ECDSA_P256")).privateKey }),
        "issuer.privateKey",
        /does not belong/,
      ],
    ])("%s", async (_name, makeIssuer, field, message) => {
      const csrPem = await createCsr(crypto, { keyPair: await generateKeyPair(crypto, "ECDSA_P256"), spiffeId: SPIFFE_ID });
      const { now, ...issuer } = await makeIssuer();
      const error = await signIntermediate(crypto, { csrPem, issuer, spiffeId: SPIFFE_ID, ttlDays: 1, now }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(PkiError);
      expect(error).toMatchObject({ field, message: expect.stringMatching(message) });
    });
  });
});

interface Issuer {
  certPem: string;
  privateKey: WebCryptoKey;
  now: Date;
}

function rootIssuer(root: RootCa): Issuer {
  return { certPem: root.certPem, privateKey: root.keyPair.privateKey, now: NOW };
}

async function leafIssuer(): Promise<Issuer> {
  const leaf = await makeCert({ subject: "CN=leaf", ca: false });
  return { certPem: leaf.certPem, privateKey: leaf.keyPair.privateKey, now: NOW };
}

async function intermediateIssuer(): Promise<Issuer> {
  const root = await rootOf("ECDSA_P256");
  const keyPair = await generateKeyPair(crypto, "ECDSA_P256");
  const { certPem } = await sign(root, await createCsr(crypto, { keyPair, spiffeId: SPIFFE_ID }));
  return { certPem, privateKey: keyPair.privateKey, now: NOW };
}
