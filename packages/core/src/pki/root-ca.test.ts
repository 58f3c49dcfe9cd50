import { X509Certificate } from "node:crypto";
import { describe, expect, it } from "vitest";
import { certificateInfo } from "./certificate-info";
import { PkiError } from "./errors";
import { KEY_ALGORITHMS, type KeyAlgorithm, type WebCrypto } from "./key-algorithms";
import { type RootCa, createRootCa } from "./root-ca";
import { DAY, HAS_OPENSSL, HOUR, NOW, SLOW, crypto, opensslText, opensslVerify } from "./test-support";

const OPTIONS = { ttlDays: 3650, orgName: "Acme, Inc.", commonName: "mesh-a root", now: NOW };
const SIGNATURE = { ECDSA_P256: "ecdsa-with-SHA256", RSA_2048: "sha256WithRSAEncryption", RSA_4096: "sha256WithRSAEncryption" };

// RSA 4096 keys take seconds to generate: one root per algorithm, shared by the Node and openssl tests.
const roots = new Map<KeyAlgorithm, Promise<RootCa>>();
function rootFor(keyAlgorithm: KeyAlgorithm): Promise<RootCa> {
  const root = roots.get(keyAlgorithm) ?? createRootCa(crypto, { ...OPTIONS, keyAlgorithm });
  roots.set(keyAlgorithm, root);
  return root;
}

describe("createRootCa", () => {
  it.each(KEY_ALGORITHMS)(
    "%s: a self-signed CA that Node reads back as asked",
    async (keyAlgorithm) => {
      const root = await rootFor(keyAlgorithm);
      const cert = new X509Certificate(root.certPem);
      expect(cert.ca).toBe(true);
      expect(cert.checkIssued(cert)).toBe(true);
      expect(cert.verify(cert.publicKey)).toBe(true);
      // Node escapes the comma: it stayed inside the O value instead of splitting the name.
      expect(cert.subject).toBe("O=Acme\\, Inc.\nCN=mesh-a root");
      expect(new Date(cert.validFrom)).toEqual(new Date(NOW.getTime() - HOUR));
      expect(new Date(cert.validTo)).toEqual(new Date(NOW.getTime() + 3650 * DAY));
      expect(root.keyPair.privateKey.extractable).toBe(true);
      // Positive, at most 16 bytes, top bit clear: no sign byte in the DER INTEGER.
      expect(cert.serialNumber).toMatch(/^[0-7]?[0-9A-F]{1,31}$/);
    },
    SLOW,
  );

  it.skipIf(!HAS_OPENSSL).each(KEY_ALGORITHMS)(
    "%s: openssl sees the critical CA extensions and verifies it",
    async (keyAlgorithm) => {
      const root = await rootFor(keyAlgorithm);
      const text = opensslText(root.certPem);
      expect(text).toMatch(/X509v3 Basic Constraints: critical\s+CA:TRUE, pathlen:1/);
      expect(text).toMatch(/X509v3 Key Usage: critical\s+Digital Signature, Certificate Sign, CRL Sign/);
      expect(text).toMatch(/X509v3 Subject Key Identifier/);
      expect(text).toContain(`Signature Algorithm: ${SIGNATURE[keyAlgorithm]}`);
      expect(opensslVerify(root.certPem, [], [root.certPem])).toMatchObject({ ok: true });
    },
    SLOW,
  );

  it("takes a different serial each time", async () => {
    const serials = await Promise.all(
      [1, 2, 3].map(async () => certificateInfo((await createRootCa(crypto, { ...OPTIONS, keyAlgorithm: "ECDSA_P256" })).certPem).serialNumber),
    );
    expect(new Set(serials).size).toBe(3);
  });

  it("takes its serial from the crypto it is given, top bit cleared", async () => {
    // The real WebCrypto with only getRandomValues pinned: proves where the serial's randomness comes from.
    const pinned: WebCrypto = {
      subtle: crypto.subtle,
      CryptoKey: crypto.CryptoKey,
      randomUUID: () => crypto.randomUUID(),
      getRandomValues: (array) => {
        if (array instanceof Uint8Array) array.fill(0xff);
        return array;
      },
    };
    const root = await createRootCa(pinned, { ...OPTIONS, keyAlgorithm: "ECDSA_P256" });
    expect(certificateInfo(root.certPem).serialNumber).toBe(`7f${"ff".repeat(15)}`);
  });

  it.each([
    ["orgName", { orgName: "" }],
    ["commonName", { commonName: "" }],
    ["ttlDays", { ttlDays: 0 }],
    ["ttlDays", { ttlDays: Number.NaN }],
  ])("refuses a bad %s", async (field, override) => {
    const error = await createRootCa(crypto, { ...OPTIONS, keyAlgorithm: "ECDSA_P256", ...override }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PkiError);
    expect(error).toMatchObject({ field });
  });
});
