import { X509Certificate } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { certificateInfo, fingerprintSha256 } from "./certificate-info";
import { PkiError } from "./errors";
import { exportPrivateKeyPem } from "./keys";
import { splitPemBundle } from "./pem";
import { type RootCa, createRootCa } from "./root-ca";
import { HAS_OPENSSL, HOUR, NOW, crypto, openssl } from "./test-support";

let a: RootCa;
let b: RootCa;
beforeAll(async () => {
  const options = { keyAlgorithm: "ECDSA_P256", ttlDays: 10, orgName: "tenant-1", now: NOW } as const;
  [a, b] = await Promise.all([createRootCa(crypto, { ...options, commonName: "a" }), createRootCa(crypto, { ...options, commonName: "b" })]);
});

describe("splitPemBundle", () => {
  it("splits a trust bundle into one PEM per certificate, in order, ignoring text between them", () => {
    const bundle = `# mesh a\n${a.certPem}subject=CN=b\r\n${b.certPem.replaceAll("\n", "\r\n")}\n`;
    expect(splitPemBundle(bundle)).toEqual([a.certPem, b.certPem]);
  });

  it("keeps concatenated output readable by openssl: every PEM ends in a newline", () => {
    expect(a.certPem.endsWith("-----END CERTIFICATE-----\n")).toBe(true);
    if (HAS_OPENSSL) {
      const run = openssl(["storeutl", "-noout", "-certs", "{bundle.pem}"], { "bundle.pem": a.certPem + b.certPem });
      expect(run.output).toMatch(/Total found: 2/);
    }
  });

  it("gives nothing for empty text", () => {
    expect(splitPemBundle("")).toEqual([]);
  });

  it.each<[string, () => Promise<string>, string, RegExp]>([
    [
      "a private key pasted into the bundle",
      async () => a.certPem + (await exportPrivateKeyPem(crypto, a.keyPair.privateKey)),
      "bundle[1]",
      /is a PRIVATE KEY block, expected CERTIFICATE/,
    ],
    [
      "a block whose base64 is broken",
      async () => `${a.certPem}-----BEGIN CERTIFICATE-----\n***\n-----END CERTIFICATE-----\n`,
      "bundle",
      /2 PEM BEGIN lines but only 1/,
    ],
    ["a block without its END line", async () => `${a.certPem}-----BEGIN CERTIFICATE-----\nAAAA\n`, "bundle", /2 PEM BEGIN lines but only 1/],
    ["a block that is not X.509", async () => "-----BEGIN CERTIFICATE-----\nAAECAwQF\n-----END CERTIFICATE-----\n", "bundle[0]", /is not an X.509 certificate/],
  ])("refuses %s", async (_name, text, field, message) => {
    const bundle = await text();
    expect(() => splitPemBundle(bundle)).toThrow(PkiError);
    expect(() => splitPemBundle(bundle)).toThrow(expect.objectContaining({ field, message: expect.stringMatching(message) }));
  });
});

describe("fingerprintSha256 and certificateInfo", () => {
  it("fingerprints the DER exactly as Node does", () => {
    const node = new X509Certificate(a.certPem).fingerprint256.replaceAll(":", "").toLowerCase();
    expect(fingerprintSha256(a.certPem)).toBe(`sha256:${node}`);
    expect(fingerprintSha256(b.certPem)).not.toBe(fingerprintSha256(a.certPem));
  });

  it("reads a root's fields", () => {
    const node = new X509Certificate(a.certPem);
    expect(certificateInfo(a.certPem)).toEqual({
      subject: "O=tenant-1, CN=a",
      issuer: "O=tenant-1, CN=a",
      serialNumber: node.serialNumber.toLowerCase(),
      notBefore: new Date(NOW.getTime() - HOUR),
      notAfter: new Date(NOW.getTime() + 10 * 24 * HOUR),
      isCa: true,
      pathLen: 1,
      uriSans: [],
      dnsSans: [],
      fingerprint: fingerprintSha256(a.certPem),
    });
  });

  it.each([
    ["two certificates", () => a.certPem + b.certPem, /exactly one PEM block, found 2/],
    ["a key", () => "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", /is a PRIVATE KEY block, expected CERTIFICATE/],
  ])("refuses %s", (_name, pem, message) => {
    expect(() => certificateInfo(pem())).toThrow(expect.objectContaining({ field: "certPem", message: expect.stringMatching(message) }));
  });
});
