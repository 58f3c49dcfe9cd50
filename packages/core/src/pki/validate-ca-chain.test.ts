import { beforeAll, describe, expect, it } from "vitest";
import { certificateInfo } from "./certificate-info";
import { createCsr } from "./csr";
import { PkiError } from "./errors";
import type { WebCryptoKeyPair } from "./key-algorithms";
import { exportPrivateKeyPem, generateKeyPair } from "./keys";
import { signIntermediate } from "./sign-intermediate";
import {
  DAY,
  HAS_OPENSSL,
  NOW,
  SPIFFE_ID,
  type MakeCertOptions,
  type TestCa,
  crypto,
  issueWorkloadCert,
  makeCert,
  openssl,
  opensslSignCsr,
  opensslVerify,
  tamperPem,
} from "./test-support";
import { validateCaChain } from "./validate-ca-chain";
import { verifyChain } from "./verify-chain";

type Level = Partial<MakeCertOptions>;

// The user's hierarchy: their root → their issuing CA → the signing CA meshplane holds the key of.
let signingKeys: WebCryptoKeyPair;
let userRoot: TestCa;
beforeAll(async () => {
  signingKeys = await generateKeyPair(crypto, "ECDSA_P256");
  userRoot = await makeCert({ subject: "O=Acme, CN=Acme Root", ca: true });
});

async function userChain(issuing: Level = {}, signing: Level = {}): Promise<{ issuing: TestCa; signing: TestCa }> {
  const issuingCa = await makeCert({ subject: "O=Acme, CN=Acme Issuing", issuer: userRoot, ca: true, ...issuing });
  const signingCa = await makeCert({ subject: "O=Acme, CN=meshplane signing CA", issuer: issuingCa, keyPair: signingKeys, ca: true, pathLen: 1, ...signing });
  return { issuing: issuingCa, signing: signingCa };
}

const pemOf = (...certs: TestCa[]) => certs.map((cert) => cert.certPem).join("");

describe("validateCaChain", () => {
  it("accepts root → user intermediate → our signing CA, and what we then issue verifies to the user's root", async () => {
    const { issuing, signing } = await userChain({ notAfter: new Date(NOW.getTime() + 100 * DAY) });
    const validated = await validateCaChain(crypto, { chainPem: pemOf(signing, issuing, userRoot), signingPublicKey: signingKeys.publicKey, now: NOW });
    expect(validated.rootPem).toBe(userRoot.certPem);
    expect(validated.chainPems).toEqual([signing.certPem, issuing.certPem, userRoot.certPem]);
    expect(validated.notAfter).toEqual(new Date(NOW.getTime() + 100 * DAY));

    // Sign an agent's intermediate with the signing CA, then a workload certificate under that.
    const agentKeys = await generateKeyPair(crypto, "ECDSA_P256");
    const csrPem = await createCsr(crypto, { keyPair: agentKeys, spiffeId: SPIFFE_ID });
    const issuer = { certPem: signing.certPem, privateKey: signingKeys.privateKey };
    const intermediate = (await signIntermediate(crypto, { csrPem, issuer, spiffeId: SPIFFE_ID, ttlDays: 365, now: NOW })).certPem;
    expect(certificateInfo(intermediate).notAfter).toEqual(certificateInfo(signing.certPem).notAfter);
    const leafPem = await issueWorkloadCert({ certPem: intermediate, ...agentKeys }, "spiffe://cluster.local/ns/a/sa/b");
    const intermediatePems = [intermediate, signing.certPem, issuing.certPem];
    expect(await verifyChain(crypto, { leafPem, intermediatePems, rootPems: [validated.rootPem], now: NOW })).toBe(true);
    if (HAS_OPENSSL) expect(opensslVerify(leafPem, intermediatePems, [validated.rootPem]).output).toContain("OK");
  });

  it("takes the signing key as SPKI bytes too", async () => {
    const { issuing, signing } = await userChain();
    const spki = await crypto.subtle.exportKey("spki", signingKeys.publicKey);
    const validated = await validateCaChain(crypto, { chainPem: pemOf(signing, issuing, userRoot), signingPublicKey: new Uint8Array(spki), now: NOW });
    expect(validated.chainPems).toHaveLength(3);
  });

  it.skipIf(!HAS_OPENSSL)("accepts our CSR signed offline with openssl by an openssl-made root", async () => {
    const csrPem = await createCsr(crypto, { keyPair: signingKeys, orgName: "Acme", commonName: "meshplane signing CA" });
    const signed = opensslSignCsr(csrPem);
    const now = new Date(certificateInfo(signed.certPem).notBefore.getTime() + 60_000);
    const validated = await validateCaChain(crypto, { chainPem: signed.certPem + signed.rootPem, signingPublicKey: signingKeys.publicKey, now });
    expect(certificateInfo(validated.rootPem).subject).toBe("O=Acme, CN=Acme Offline Root");

    // Our intermediate under openssl's certificates chains for openssl as well.
    const agentKeys = await generateKeyPair(crypto, "ECDSA_P256");
    const agentCsr = await createCsr(crypto, { keyPair: agentKeys, spiffeId: SPIFFE_ID });
    const issuer = { certPem: signed.certPem, privateKey: signingKeys.privateKey };
    const intermediate = (await signIntermediate(crypto, { csrPem: agentCsr, issuer, spiffeId: SPIFFE_ID, ttlDays: 30, now })).certPem;
    const verified = openssl(
      ["verify", "-attime", String(Math.floor(now.getTime() / 1000) + 3600), "-CAfile", "{root.pem}", "-untrusted", "{signing.pem}", "{int.pem}"],
      { "root.pem": signed.rootPem, "signing.pem": signed.certPem, "int.pem": intermediate },
    );
    expect(verified.output).toContain("OK");
  });

  it.each<[string, () => Promise<string>, string, RegExp]>([
    [
      "a chain for another key",
      async () => pemOf((await userChain({}, { keyPair: await generateKeyPair(crypto, "ECDSA_P256") })).signing, userRoot),
      "chainPem[0]",
      /does not carry the signing CA key/,
    ],
    [
      "an expired user intermediate",
      async () => chainOf(await userChain({ notAfter: new Date(NOW.getTime() - DAY) })),
      "chainPem[1]",
      /\(O=Acme, CN=Acme Issuing\) expired at/,
    ],
    ["a user intermediate that is not a CA", async () => chainOf(await userChain({ ca: false })), "chainPem[1]", /is not a CA/],
    [
      "pathLen 0 on the signing CA",
      async () => chainOf(await userChain({}, { pathLen: 0 })),
      "chainPem[0]",
      /has pathLen 0 but 1 CA certificate\(s\) must follow it/,
    ],
    [
      "pathLen 1 on the user intermediate",
      async () => chainOf(await userChain({ pathLen: 1 })),
      "chainPem[1]",
      /has pathLen 1 but 2 CA certificate\(s\) must follow it/,
    ],
    ["a signing CA without keyUsage", async () => chainOf(await userChain({}, { keyUsage: null })), "chainPem[0]", /has no keyUsage/],
    ["a signing CA whose keyUsage lacks keyCertSign", async () => chainOf(await userChain({}, { keyUsage: 1 })), "chainPem[0]", /keyUsage without keyCertSign/],
    [
      "a signing CA issued by another key of the same name",
      async () => {
        const { signing } = await userChain();
        const { issuing } = await userChain();
        return pemOf(signing, issuing, userRoot);
      },
      "chainPem[0]",
      /is not signed by chainPem\[1\] \(O=Acme, CN=Acme Issuing\)/,
    ],
    [
      "a tampered signature",
      async () => {
        const { issuing, signing } = await userChain();
        return tamperPem(signing.certPem, -1, "CERTIFICATE") + issuing.certPem + userRoot.certPem;
      },
      "chainPem[0]",
      /is not signed by chainPem\[1\]/,
    ],
    [
      "no root at the end",
      async () => {
        const { issuing, signing } = await userChain();
        return pemOf(signing, issuing);
      },
      "chainPem[1]",
      /not a self-signed root/,
    ],
    ["nothing", async () => "", "chainPem", /holds no certificate/],
    [
      "a private key in the chain",
      async () => (await userChain()).signing.certPem + (await exportPrivateKeyPem(crypto, signingKeys.privateKey)),
      "chainPem[1]",
      /is a PRIVATE KEY block/,
    ],
    ["nine certificates", async () => (await userChain()).signing.certPem.repeat(9), "chainPem", /holds 9 certificates, at most 8/],
  ])("refuses %s", async (_name, chainPem, field, message) => {
    const error = await validateCaChain(crypto, { chainPem: await chainPem(), signingPublicKey: signingKeys.publicKey, now: NOW }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(PkiError);
    expect(error).toMatchObject({ field, message: expect.stringMatching(message) });
  });
});

function chainOf(chain: { issuing: TestCa; signing: TestCa }): string {
  return pemOf(chain.signing, chain.issuing, userRoot);
}
