import { describe, expect, it } from "vitest";
import { createCsr, parseCsr } from "./csr";
import { PkiError } from "./errors";
import { KEY_ALGORITHMS, type WebCryptoKeyPair } from "./key-algorithms";
import { generateKeyPair } from "./keys";
import { HAS_OPENSSL, SLOW, SPIFFE_ID, crypto, openssl, opensslText, replaceInPem, tamperPem } from "./test-support";
import * as x509 from "./x509";

const TAG = "CERTIFICATE REQUEST";

// A CSR the way another tool would make it, for keys our generator refuses to make.
async function libraryCsr(keys: WebCryptoKeyPair, hash = "SHA-256"): Promise<string> {
  const name = keys.privateKey.algorithm.name;
  const csr = await x509.Pkcs10CertificateRequestGenerator.create(
    { name: "O=other", keys, signingAlgorithm: name === "ECDSA" ? { name, hash } : { name }, extensions: [] },
    crypto,
  );
  return csr.toString("pem");
}

describe("createCsr and parseCsr", () => {
  it.each(KEY_ALGORITHMS)(
    "%s: the agent's CSR carries its SPIFFE ID and a CA request",
    async (algorithm) => {
      const keyPair = await generateKeyPair(crypto, algorithm);
      const pem = await createCsr(crypto, { keyPair, spiffeId: SPIFFE_ID, orgName: "cluster-1" });
      expect(await parseCsr(crypto, pem)).toMatchObject({
        keyAlgorithm: algorithm,
        subject: "O=cluster-1",
        orgName: "cluster-1",
        uriSans: [SPIFFE_ID],
        dnsSans: [],
        otherSans: [],
        requestedCa: true,
        requestedPathLen: undefined,
      });
      const spki = new Uint8Array(await crypto.subtle.exportKey("spki", keyPair.publicKey));
      expect(new Uint8Array((await parseCsr(crypto, pem)).publicKeySpki)).toEqual(spki);
    },
    SLOW,
  );

  it.skipIf(!HAS_OPENSSL)("openssl verifies the CSR and reads the requested extensions", async () => {
    const keyPair = await generateKeyPair(crypto, "ECDSA_P256");
    const pem = await createCsr(crypto, { keyPair, spiffeId: SPIFFE_ID, orgName: "cluster-1", pathLen: 0 });
    expect(openssl(["req", "-verify", "-noout", "-in", "{csr.pem}"], { "csr.pem": pem })).toMatchObject({ ok: true });
    const text = opensslText(pem, "req");
    expect(text).toMatch(/Basic Constraints: critical\s+CA:TRUE, pathlen:0/);
    expect(text).toContain(`URI:${SPIFFE_ID}`);
  });

  it("the bring-your-own-PKI CSR names the CA and requests no SAN", async () => {
    const keyPair = await generateKeyPair(crypto, "ECDSA_P256");
    const pem = await createCsr(crypto, { keyPair, orgName: "Acme", commonName: "meshplane signing CA mesh-a" });
    expect(await parseCsr(crypto, pem)).toMatchObject({
      subject: "O=Acme, CN=meshplane signing CA mesh-a",
      uriSans: [],
      requestedCa: true,
    });
  });

  it.skipIf(!HAS_OPENSSL)("reads a CSR made by openssl", () => {
    const made = openssl([
      "req",
      "-new",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:P-256",
      "-nodes",
      "-keyout",
      "{key.pem}",
      "-subj",
      "/O=by-openssl",
      "-addext",
      `subjectAltName=URI:${SPIFFE_ID},DNS:extra.example`,
      "-addext",
      "basicConstraints=critical,CA:TRUE,pathlen:0",
    ]);
    expect(made.ok).toBe(true);
    const pem = made.output.slice(made.output.indexOf("-----BEGIN CERTIFICATE REQUEST-----"));
    return expect(parseCsr(crypto, pem)).resolves.toMatchObject({
      orgName: "by-openssl",
      uriSans: [SPIFFE_ID],
      dnsSans: ["extra.example"],
      requestedCa: true,
      requestedPathLen: 0,
    });
  });

  it.each([
    ["nothing to name", {}, "spiffeId", /needs a SPIFFE ID, an orgName or a commonName/],
    ["an http URL", { spiffeId: "https://cluster.local/ns/a" }, "spiffeId", /is not a SPIFFE ID/],
    ["a query string", { spiffeId: "spiffe://cluster.local/ns/a?x=1" }, "spiffeId", /is not a SPIFFE ID/],
    ["no URI at all", { spiffeId: "cluster.local" }, "spiffeId", /is not a URI/],
  ])("createCsr refuses %s", async (_name, options, field, message) => {
    const keyPair = await generateKeyPair(crypto, "ECDSA_P256");
    const error = await createCsr(crypto, { keyPair, ...options }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PkiError);
    expect(error).toMatchObject({ field, message: expect.stringMatching(message) });
  });
});

const good = async () => createCsr(crypto, { keyPair: await generateKeyPair(crypto, "ECDSA_P256"), spiffeId: SPIFFE_ID });
const rsaKeys = async (modulusLength: number) =>
  crypto.subtle.generateKey({ name: "RSASSA-PKCS1-v1_5", modulusLength, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" }, true, ["sign", "verify"]);

describe("parseCsr refusals", () => {
  it.each<[string, () => Promise<string>, string, RegExp]>([
    ["text that is not PEM", async () => "hello", "csr", /exactly one PEM block, found 0/],
    [
      "a certificate instead of a CSR",
      async () => (await good()).replaceAll(TAG, "CERTIFICATE"),
      "csr",
      /is a CERTIFICATE block, expected CERTIFICATE REQUEST/,
    ],
    ["two CSRs", async () => (await good()) + (await good()), "csr", /exactly one PEM block, found 2/],
    ["base64 that does not decode", async () => `-----BEGIN ${TAG}-----\n!!!!\n-----END ${TAG}-----\n`, "csr", /1 PEM BEGIN lines but only 0/],
    ["DER that is not a CSR", async () => `-----BEGIN ${TAG}-----\nAAECAwQF\n-----END ${TAG}-----\n`, "csr", /not a PKCS#10 certificate request/],
    ["a tampered signature", async () => tamperPem(await good(), -1, TAG), "csr.signature", /does not verify/],
    ["a tampered SPIFFE ID", async () => replaceInPem(await good(), "istiod", "istioX", TAG), "csr.signature", /does not verify/],
    ["an RSA 1024 key", async () => libraryCsr(await rsaKeys(1024)), "csr.publicKey", /RSA key of 1024 bits is too short/],
    ["an RSA 2560 key", async () => libraryCsr(await rsaKeys(2560)), "csr.publicKey", /2560 bits is not a supported size/],
    [
      "a P-384 key",
      async () =>
        libraryCsr((await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-384" }, true, ["sign", "verify"])) as WebCryptoKeyPair, "SHA-384"),
      "csr.publicKey",
      /ECDSA P-384 keys are not supported/,
    ],
  ])("refuses %s", async (_name, pem, field, message) => {
    const error = await parseCsr(crypto, await pem()).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PkiError);
    expect(error).toMatchObject({ field, message: expect.stringMatching(message) });
  });

  it("accepts an RSA 3072 key from another tool", async () => {
    expect(await parseCsr(crypto, await libraryCsr(await rsaKeys(3072)))).toMatchObject({ keyAlgorithm: "RSA_3072" });
  });
});
