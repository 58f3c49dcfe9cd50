// Helpers for the pki unit tests only: index.ts does not export this file and only *.test.ts files
// import it. It runs openssl and writes temporary files, which core code never does; it lives here
// because the pki tests sit next to the module and need an independent verifier.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type KeyAlgorithm, type WebCryptoKey, type WebCryptoKeyPair, signingParams } from "./key-algorithms";
import { generateKeyPair } from "./keys";
import * as x509 from "./x509";

export const crypto = globalThis.crypto;
/** A fixed clock for every test; certificates are checked against it, never against the real one. */
export const NOW = new Date("2031-03-15T12:00:00Z");
export const HOUR = 60 * 60 * 1000;
export const DAY = 24 * HOUR;
export const SPIFFE_ID = "spiffe://cluster.local/ns/istio-system/sa/istiod-cluster-1";

/** Timeout for tests that generate RSA 4096 keys, which takes seconds and varies with load. */
export const SLOW = 60_000;

export const HAS_OPENSSL = spawnSync("openssl", ["version"]).status === 0;

export interface TestCa {
  certPem: string;
  keyPair: WebCryptoKeyPair;
}

export interface MakeCertOptions {
  subject: string;
  /** Signs the certificate; undefined makes it self-signed with `keyPair`. */
  issuer?: TestCa;
  /** The issuer name written into the certificate; undefined copies the issuer's subject. */
  issuerName?: string;
  /** The key the certificate certifies; undefined generates an ECDSA P-256 pair. */
  keyPair?: WebCryptoKeyPair;
  keyAlgorithm?: KeyAlgorithm;
  ca: boolean;
  pathLen?: number;
  /** keyUsage flags; undefined gives CA usages to a CA and digitalSignature|keyEncipherment to a leaf. */
  keyUsage?: number | null;
  uriSans?: string[];
  notBefore?: Date;
  notAfter?: Date;
}

/**
 * Any certificate a test needs, built with the library directly — a user's root or intermediate,
 * a broken one, or the workload certificate Istio would issue from our intermediate.
 */
export async function makeCert(options: MakeCertOptions): Promise<TestCa> {
  const keyPair = options.keyPair ?? (await generateKeyPair(crypto, options.keyAlgorithm ?? "ECDSA_P256"));
  const signer = options.issuer?.keyPair ?? keyPair;
  const publicKey = await x509.PublicKey.create(keyPair.publicKey, crypto);
  const issuerCert = options.issuer && new x509.X509Certificate(options.issuer.certPem);
  const defaultUsage = options.ca
    ? x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature
    : x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment;
  const keyUsage = options.keyUsage === undefined ? defaultUsage : options.keyUsage;
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(options.ca, options.pathLen, true),
    await x509.SubjectKeyIdentifierExtension.create(publicKey, false, crypto),
    await x509.AuthorityKeyIdentifierExtension.create(issuerCert?.publicKey ?? publicKey, false, crypto),
  ];
  if (keyUsage !== null) extensions.push(new x509.KeyUsagesExtension(keyUsage, true));
  if (!options.ca) extensions.push(new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth, x509.ExtendedKeyUsage.clientAuth]));
  if (options.uriSans) extensions.push(new x509.SubjectAlternativeNameExtension(options.uriSans.map((value) => ({ type: "url", value }))));
  const cert = await x509.X509CertificateGenerator.create(
    {
      subject: options.subject,
      issuer: options.issuerName ?? issuerCert?.subjectName ?? options.subject,
      publicKey,
      signingKey: signer.privateKey,
      signingAlgorithm: signingParams(signer.privateKey, "signer"),
      notBefore: options.notBefore ?? new Date(NOW.getTime() - DAY),
      notAfter: options.notAfter ?? new Date(NOW.getTime() + 365 * DAY),
      extensions,
    },
    crypto,
  );
  return { certPem: `${cert.toString("pem")}\n`, keyPair };
}

/** The workload certificate Istio's CA would issue with an intermediate meshplane signed. */
export async function issueWorkloadCert(issuer: { certPem: string; privateKey: WebCryptoKey; publicKey: WebCryptoKey }, spiffeId: string): Promise<string> {
  const leaf = await makeCert({
    subject: "O=cluster.local",
    issuer: { certPem: issuer.certPem, keyPair: { privateKey: issuer.privateKey, publicKey: issuer.publicKey } },
    ca: false,
    uriSans: [spiffeId],
    notBefore: new Date(NOW.getTime() - HOUR),
    notAfter: new Date(NOW.getTime() + DAY),
  });
  return leaf.certPem;
}

/** Runs `fn` in a fresh temporary directory holding `files`; `path(name)` names a file in it. */
function inTempDir<T>(files: Record<string, string>, fn: (path: (name: string) => string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), "meshplane-pki-"));
  try {
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    return fn((name) => join(dir, name));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function runOpenssl(args: string[]): { ok: boolean; output: string } {
  const result = spawnSync("openssl", args, { encoding: "utf8" });
  return { ok: result.status === 0, output: `${result.stdout}${result.stderr}` };
}

/** Runs openssl with `files` written to a temporary directory; an argument `{name}` becomes that file's path. */
export function openssl(args: string[], files: Record<string, string> = {}): { ok: boolean; output: string } {
  return inTempDir(files, (path) => runOpenssl(args.map((arg) => arg.replace(/^\{(.+)\}$/, (_, name: string) => path(name)))));
}

/**
 * What a user does offline for bring-your-own PKI: make a root with openssl and sign meshplane's CSR
 * with it, copying the requested extensions. openssl stamps the real clock as notBefore, so callers
 * validate at a `now` taken from the certificate.
 */
export function opensslSignCsr(csrPem: string): { certPem: string; rootPem: string } {
  return inTempDir({ "csr.pem": csrPem }, (path) => {
    const steps = [
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
        "-keyout",
        path("root.key"),
        "-out",
        path("root.pem"),
        "-subj",
        "/O=Acme/CN=Acme Offline Root",
        "-days",
        "36500",
        "-addext",
        "basicConstraints=critical,CA:TRUE",
        "-addext",
        "keyUsage=critical,keyCertSign,cRLSign",
      ],
      [
        "x509",
        "-req",
        "-in",
        path("csr.pem"),
        "-CA",
        path("root.pem"),
        "-CAkey",
        path("root.key"),
        "-copy_extensions",
        "copyall",
        "-days",
        "3650",
        "-set_serial",
        "0x5eed",
        "-sha256",
        "-out",
        path("signing.pem"),
      ],
    ];
    for (const step of steps) {
      const result = runOpenssl(step);
      if (!result.ok) throw new Error(`openssl ${step[0]} failed: ${result.output}`);
    }
    return { certPem: readFileSync(path("signing.pem"), "utf8"), rootPem: readFileSync(path("root.pem"), "utf8") };
  });
}

/** `openssl verify -x509_strict` at `at` of a leaf through untrusted intermediates to trusted roots. */
export function opensslVerify(leafPem: string, intermediatePems: string[], rootPems: string[], at: Date = NOW): { ok: boolean; output: string } {
  const args = ["verify", "-x509_strict", "-attime", String(Math.floor(at.getTime() / 1000)), "-CAfile", "{roots.pem}"];
  if (intermediatePems.length > 0) args.push("-untrusted", "{chain.pem}");
  args.push("{leaf.pem}");
  return openssl(args, { "roots.pem": rootPems.join(""), "chain.pem": intermediatePems.join(""), "leaf.pem": leafPem });
}

/** openssl's text dump of a certificate or CSR, for asserting extensions as a second parser sees them. */
export function opensslText(pem: string, kind: "x509" | "req" = "x509"): string {
  const run = openssl([kind, "-in", "{in.pem}", "-noout", "-text"], { "in.pem": pem });
  if (!run.ok) throw new Error(`openssl ${kind} failed: ${run.output}`);
  return run.output;
}

/** Flips one byte of a PEM object's DER (negative offsets count from the end) and re-encodes it. */
export function tamperPem(pem: string, offset: number, tag: string): string {
  const der = new Uint8Array(x509.PemConverter.decodeFirst(pem));
  const at = offset < 0 ? der.length + offset : offset;
  der[at] = (der[at] ?? 0) ^ 0x01;
  return x509.PemConverter.encode(der, tag);
}

/** Replaces an ASCII string inside a PEM object's DER with another of the same length. */
export function replaceInPem(pem: string, from: string, to: string, tag: string): string {
  if (from.length !== to.length) throw new Error("replaceInPem keeps lengths equal so the DER stays well-formed");
  const der = Buffer.from(x509.PemConverter.decodeFirst(pem));
  const at = der.indexOf(from, 0, "latin1");
  if (at < 0) throw new Error(`${from} not found`);
  der.write(to, at, "latin1");
  return x509.PemConverter.encode(der, tag);
}
