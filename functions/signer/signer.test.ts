import { generateKeyPairSync, sign as nodeSign, verify } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { calculateJwkThumbprint, compactVerify, createLocalJWKSet } from "jose";
import { describe, expect, it } from "vitest";
import { derToJose } from "./der";
import { LocalKeySigner } from "./local-key";

describe("derToJose", () => {
  it("turns real DER ECDSA signatures into the 64-byte JOSE form that verifies", () => {
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    // Many signatures, so both short (leading-zero-stripped) and 33-byte (sign-padded) integers occur.
    for (let i = 0; i < 200; i++) {
      const message = Buffer.from(`message ${i}`);
      const der = nodeSign("sha256", message, { key: privateKey, dsaEncoding: "der" });
      const jose = derToJose(der);
      expect(jose.length).toBe(64);
      const p1363 = nodeSign("sha256", message, { key: privateKey, dsaEncoding: "ieee-p1363" });
      // ECDSA is randomised, so compare by verifying rather than by bytes.
      expect(p1363.length).toBe(64);
      expect(verify("sha256", message, { key: publicKey, dsaEncoding: "ieee-p1363" }, Buffer.from(jose))).toBe(true);
    }
  });

  it.each([
    ["not a sequence", [0x31, 0x00]],
    ["truncated", [0x30, 0x06, 0x02, 0x01, 0x01]],
    ["integer too long", [0x30, 0x26, 0x02, 0x21, ...Array(33).fill(1), 0x02, 0x01, 0x01]],
  ])("rejects %s", (_what, bytes) => {
    expect(() => derToJose(Uint8Array.from(bytes))).toThrow(/malformed DER/);
  });
});

describe("LocalKeySigner", () => {
  it("signs ES256 JWS that verify against its JWKS, and keeps old keys published after rotation", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "signer-")), "keys.json");
    const signer = LocalKeySigner.open(path);
    const first = await signer.sign(Buffer.from('{"a":1}'), "meshplane-snapshot+jwt");
    const jwks1 = await signer.jwks();
    expect(jwks1.keys).toHaveLength(1);
    const v1 = await compactVerify(first, createLocalJWKSet(jwks1));
    expect(v1.protectedHeader).toMatchObject({ alg: "ES256", typ: "meshplane-snapshot+jwt", kid: jwks1.keys[0]?.kid });

    const reopened = LocalKeySigner.open(path);
    const newKid = reopened.rotate();
    const second = await reopened.sign(Buffer.from('{"a":2}'), "meshplane-snapshot+jwt");
    const jwks2 = await reopened.jwks();
    expect(jwks2.keys.map((k) => k.kid)).toEqual([newKid, jwks1.keys[0]?.kid]);
    expect((await compactVerify(second, createLocalJWKSet(jwks2))).protectedHeader.kid).toBe(newKid);
    await expect(compactVerify(first, createLocalJWKSet(jwks2))).resolves.toBeDefined();
    expect(jwks2.keys.every((k) => !("d" in k))).toBe(true);
    expect(jwks2.keys[0]?.kid).toBe(await calculateJwkThumbprint(jwks2.keys[0] as never));

    reopened.rotate();
    reopened.rotate();
    expect((await reopened.jwks()).keys.map((k) => k.kid)).not.toContain(jwks1.keys[0]?.kid);
  });
});
