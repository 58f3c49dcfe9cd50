import { createPrivateKey, createPublicKey, generateKeyPairSync, sign as nodeSign } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { JWK } from "jose";
import { type Signer, b64url, ecThumbprint, signingInput } from "./signer";

interface StoredKey {
  kid: string;
  privateJwk: JWK;
  createdAt: string;
}

interface KeyFile {
  /** Newest first; the first is the active key. */
  keys: StoredKey[];
}

/** How many retired keys stay published after a rotation (snapshots signed by them still verify). */
const KEEP_PREVIOUS = 2;

function newKey(now: Date): StoredKey {
  const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const privateJwk = privateKey.export({ format: "jwk" }) as JWK;
  return { kid: ecThumbprint(privateJwk), privateJwk, createdAt: now.toISOString() };
}

/**
 * ES256 signing with a key file (local mode). The file holds the active key and the previous ones;
 * it is written with mode 0600 and replaced atomically. `kid` is the RFC 7638 thumbprint.
 */
export class LocalKeySigner implements Signer {
  private constructor(
    private readonly path: string,
    private file: KeyFile,
  ) {}

  /** Loads the key file, creating it with a fresh key on first use. */
  static open(path: string, now = new Date()): LocalKeySigner {
    if (existsSync(path)) return new LocalKeySigner(path, JSON.parse(readFileSync(path, "utf8")) as KeyFile);
    const signer = new LocalKeySigner(path, { keys: [newKey(now)] });
    signer.save();
    return signer;
  }

  /** Makes a new key active; the old one stays published so what it signed keeps verifying. */
  rotate(now = new Date()): string {
    const key = newKey(now);
    this.file = { keys: [key, ...this.file.keys].slice(0, 1 + KEEP_PREVIOUS) };
    this.save();
    return key.kid;
  }

  async sign(payload: Uint8Array, typ: string): Promise<string> {
    const active = this.file.keys[0] as StoredKey;
    const input = signingInput(active.kid, typ, payload);
    const key = createPrivateKey({ key: active.privateJwk as never, format: "jwk" });
    const signature = nodeSign("sha256", Buffer.from(input), { key, dsaEncoding: "ieee-p1363" });
    return `${input}.${b64url(signature)}`;
  }

  async jwks(): Promise<{ keys: JWK[] }> {
    return {
      keys: this.file.keys.map((k) => {
        const pub = createPublicKey({ key: k.privateJwk as never, format: "jwk" }).export({ format: "jwk" }) as JWK;
        return { kty: pub.kty, crv: pub.crv, x: pub.x, y: pub.y, kid: k.kid, alg: "ES256", use: "sig" } as JWK;
      }),
    };
  }

  private save(): void {
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    const tmp = `${this.path}.tmp`;
    writeFileSync(tmp, JSON.stringify(this.file, null, 2), { mode: 0o600 });
    renameSync(tmp, this.path);
  }
}
