import { createPrivateKey, generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { PkiError } from "./errors";
import { KEY_ALGORITHMS, type KeyAlgorithm } from "./key-algorithms";
import { exportPrivateKeyPem, generateKeyPair, importPrivateKeyPem } from "./keys";
import { SLOW, crypto } from "./test-support";

// How Node's own key parser describes each algorithm: an independent reading of our PKCS#8.
const NODE_VIEW = {
  ECDSA_P256: { type: "ec", details: { namedCurve: "prime256v1" } },
  RSA_2048: { type: "rsa", details: { modulusLength: 2048 } },
  RSA_4096: { type: "rsa", details: { modulusLength: 4096 } },
} as const;

const DATA = new TextEncoder().encode("meshplane");

// RSA 4096 keys take seconds to generate: one pair per algorithm for the whole file.
const pairs = new Map<KeyAlgorithm, ReturnType<typeof generateKeyPair>>();
function pairFor(algorithm: KeyAlgorithm): ReturnType<typeof generateKeyPair> {
  const pair = pairs.get(algorithm) ?? generateKeyPair(crypto, algorithm);
  pairs.set(algorithm, pair);
  return pair;
}

describe("generateKeyPair and PKCS#8 PEM", () => {
  it.each(KEY_ALGORITHMS)(
    "%s: generates an extractable pair that round-trips through PEM",
    async (algorithm) => {
      const pair = await pairFor(algorithm);
      expect(pair.privateKey.extractable).toBe(true);

      const pem = await exportPrivateKeyPem(crypto, pair.privateKey);
      expect(pem).toMatch(/^-----BEGIN PRIVATE KEY-----\r?\n/);
      const nodeKey = createPrivateKey(pem);
      expect(nodeKey.asymmetricKeyType).toBe(NODE_VIEW[algorithm].type);
      expect(nodeKey.asymmetricKeyDetails).toMatchObject(NODE_VIEW[algorithm].details);

      // Imported without naming the algorithm, the key still signs for the original public key.
      const imported = await importPrivateKeyPem(crypto, pem);
      expect(imported.extractable).toBe(false);
      const params = algorithm === "ECDSA_P256" ? { name: "ECDSA", hash: "SHA-256" } : { name: "RSASSA-PKCS1-v1_5" };
      const signature = await crypto.subtle.sign(params, imported, DATA);
      expect(await crypto.subtle.verify(params, pair.publicKey, signature, DATA)).toBe(true);
    },
    SLOW,
  );

  it.each(KEY_ALGORITHMS)(
    "%s: imports when the expected algorithm is named",
    async (algorithm) => {
      const pem = await exportPrivateKeyPem(crypto, (await pairFor(algorithm)).privateKey);
      const key = await importPrivateKeyPem(crypto, pem, algorithm);
      expect(key.type).toBe("private");
    },
    SLOW,
  );
});

const pkcs8 = (key: ReturnType<typeof generateKeyPairSync>["privateKey"]) => key.export({ type: "pkcs8", format: "pem" }).toString();

describe("importPrivateKeyPem refusals", () => {
  const ec = generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey;
  const rsa2048 = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey;

  it.each<[string, () => string, KeyAlgorithm | undefined, RegExp]>([
    ["SEC1 EC key", () => ec.export({ type: "sec1", format: "pem" }).toString(), undefined, /EC PRIVATE KEY block; expected PKCS#8/],
    ["PKCS#1 RSA key", () => rsa2048.export({ type: "pkcs1", format: "pem" }).toString(), undefined, /RSA PRIVATE KEY block; expected PKCS#8/],
    ["no PEM at all", () => "not a key", undefined, /exactly one PEM block, found 0/],
    ["two keys", () => pkcs8(ec) + pkcs8(ec), undefined, /exactly one PEM block, found 2/],
    ["garbage inside the block", () => "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", undefined, /not a PKCS#8 PrivateKeyInfo/],
    ["Ed25519 key", () => pkcs8(generateKeyPairSync("ed25519").privateKey), undefined, /key algorithm 1\.3\.101\.112/],
    ["P-384 key", () => pkcs8(generateKeyPairSync("ec", { namedCurve: "P-384" }).privateKey), undefined, /not a valid ECDSA_P256 private key/],
    ["RSA 1024 key", () => pkcs8(generateKeyPairSync("rsa", { modulusLength: 1024 }).privateKey), undefined, /RSA_1024 key, expected RSA_2048 or RSA_4096/],
    ["EC key named as RSA", () => pkcs8(ec), "RSA_2048", /not a valid RSA_2048 private key/],
    ["RSA 2048 key named as RSA 4096", () => pkcs8(rsa2048), "RSA_4096", /RSA_2048 key, expected RSA_4096/],
  ])("refuses %s", async (_name, pem, algorithm, message) => {
    const error = await importPrivateKeyPem(crypto, pem(), algorithm).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PkiError);
    expect(error).toMatchObject({ field: "keyPem", message: expect.stringMatching(message) });
  });
});

describe("exportPrivateKeyPem refusals", () => {
  it("refuses a public key", async () => {
    const pair = await generateKeyPair(crypto, "ECDSA_P256");
    await expect(exportPrivateKeyPem(crypto, pair.publicKey)).rejects.toThrow(/key: is a public key/);
  });

  it("refuses a non-extractable key instead of leaking a WebCrypto error", async () => {
    const pem = await exportPrivateKeyPem(crypto, (await generateKeyPair(crypto, "ECDSA_P256")).privateKey);
    const imported = await importPrivateKeyPem(crypto, pem);
    await expect(exportPrivateKeyPem(crypto, imported)).rejects.toThrow(PkiError);
  });
});
