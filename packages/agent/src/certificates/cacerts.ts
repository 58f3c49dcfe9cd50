import { type CertificateDirective, type CertificateResult, MeshplaneError, certificateInfo, fingerprintSha256, splitPemBundle } from "@meshplane/core";
import type { ObjectRef } from "../kube/kube";
import { type Scope, ownerLabels } from "../ownership";
import { keyAlgorithmOf, keyMatchesCertificate } from "./x509";

/** Why a mesh's certificate could not be kept as its directive asks; the message goes to the status report. */
export class CertificateError extends MeshplaneError {}

/** The four files Istio's plugged-in CA reads from `cacerts` (docs/shared-trust.md#the-pieces). */
export interface CacertsMaterial {
  caCert: string;
  caKey: string;
  certChain: string;
  rootCert: string;
}

const KEYS = { caCert: "ca-cert.pem", caKey: "ca-key.pem", certChain: "cert-chain.pem", rootCert: "root-cert.pem" } as const;

/**
 * Annotations on cacerts. `issuer` and `trust-bundle` say what the Secret holds; the other three
 * record restarts, so an agent that restarts halfway continues where it stopped: `roots-changed-at`
 * is when the Secret last got another root bundle (which istiod only loads on a restart), and the
 * `*-restarted-for` marks name the change whose restarts are done.
 */
export const CACERTS_ANNOTATIONS = {
  issuer: "meshplane.dev/issuer",
  trustBundle: "meshplane.dev/trust-bundle",
  rootsChangedAt: "meshplane.dev/roots-changed-at",
  istiodRestartedFor: "meshplane.dev/istiod-restarted-for",
  workloadsRestartedFor: "meshplane.dev/workloads-restarted-for",
} as const;

/** The restart progress recorded on a mesh's cacerts. */
export interface CacertsMarks {
  rootsChangedAt?: string;
  istiodRestartedFor?: string;
  workloadsRestartedFor?: string;
}

export interface SecretObject {
  apiVersion: "v1";
  kind: "Secret";
  metadata: { name: string; namespace: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  type?: string;
  data?: Record<string, string>;
}

export const cacertsRef = (d: CertificateDirective): ObjectRef => ({ apiVersion: "v1", kind: "Secret", namespace: d.secretNamespace, name: d.secretName });

/** The four files of a Secret, or undefined when any is missing (a Secret that is not a usable cacerts). */
export function materialOf(secret: SecretObject | undefined): CacertsMaterial | undefined {
  const data = secret?.data ?? {};
  const read = (key: string) => (data[key] === undefined ? undefined : Buffer.from(data[key], "base64").toString("utf8"));
  const [caCert, caKey, certChain, rootCert] = [read(KEYS.caCert), read(KEYS.caKey), read(KEYS.certChain), read(KEYS.rootCert)];
  if (caCert === undefined || caKey === undefined || certChain === undefined || rootCert === undefined) return undefined;
  return { caCert, caKey, certChain, rootCert };
}

export function marksOf(secret: SecretObject | undefined): CacertsMarks {
  const a = secret?.metadata.annotations ?? {};
  const pick = (key: string) => (a[key] ? a[key] : undefined);
  const marks: CacertsMarks = {};
  const [rootsChangedAt, istiodRestartedFor, workloadsRestartedFor] = [
    pick(CACERTS_ANNOTATIONS.rootsChangedAt),
    pick(CACERTS_ANNOTATIONS.istiodRestartedFor),
    pick(CACERTS_ANNOTATIONS.workloadsRestartedFor),
  ];
  if (rootsChangedAt) marks.rootsChangedAt = rootsChangedAt;
  if (istiodRestartedFor) marks.istiodRestartedFor = istiodRestartedFor;
  if (workloadsRestartedFor) marks.workloadsRestartedFor = workloadsRestartedFor;
  return marks;
}

/** What a mesh's cacerts holds, read from its files. */
export interface HeldFacts {
  /** Fingerprint of the second certificate of cert-chain.pem: what signed the intermediate. */
  issuer: string | undefined;
  /** Fingerprints of root-cert.pem's certificates, sorted. */
  trustBundle: string[];
  notAfter: Date;
  uriSans: string[];
  keyAlgorithm: string;
  /** ca-cert.pem is the first certificate of cert-chain.pem and ca-key.pem is its key. */
  consistent: boolean;
}

/** Reads the facts of a cacerts; throws (PkiError or Node's) on files that do not parse. */
export function factsOf(m: CacertsMaterial): HeldFacts {
  const chain = splitPemBundle(m.certChain);
  const info = certificateInfo(m.caCert);
  return {
    issuer: chain[1] === undefined ? undefined : fingerprintSha256(chain[1]),
    trustBundle: rootFingerprints(m.rootCert),
    notAfter: info.notAfter,
    uriSans: info.uriSans,
    keyAlgorithm: keyAlgorithmOf(m.caCert),
    consistent: chain[0] !== undefined && fingerprintSha256(chain[0]) === info.fingerprint && keyMatchesCertificate(m.caCert, m.caKey),
  };
}

export const rootFingerprints = (bundle: string): string[] => splitPemBundle(bundle).map(fingerprintSha256).sort();

export const sameList = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

const DAY_MS = 24 * 60 * 60 * 1000;
const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");

/**
 * Why a mesh needs a new intermediate, or undefined when what it holds is what `d` asks for: no
 * cacerts, unreadable or inconsistent files, another issuer, another root bundle, another SPIFFE
 * identity or key algorithm, or an expiry within `rotateBeforeDays` of `now`. Pure; the reason is
 * logged, so it never contains key material.
 */
export function renewalReason(m: CacertsMaterial | undefined, d: CertificateDirective, now: Date): string | undefined {
  if (m === undefined) return "the mesh has no cacerts with all four files";
  let f: HeldFacts;
  try {
    f = factsOf(m);
  } catch (error) {
    return `the held cacerts does not parse (${(error as Error).message})`;
  }
  if (!f.consistent) return "ca-cert.pem, ca-key.pem and cert-chain.pem do not belong together";
  if (f.issuer !== d.issuer) return `the held intermediate was issued by ${f.issuer ?? "nothing named in cert-chain.pem"}, the directive names ${d.issuer}`;
  if (!sameList(f.trustBundle, d.trustBundle))
    return `root-cert.pem holds [${f.trustBundle.join(", ")}], the directive's trust bundle is [${d.trustBundle.join(", ")}]`;
  if (f.uriSans.length !== 1 || f.uriSans[0] !== d.identity) return `the held intermediate names [${f.uriSans.join(", ")}], the directive ${d.identity}`;
  if (f.keyAlgorithm !== d.keyAlgorithm) return `the held intermediate's key is ${f.keyAlgorithm}, the directive asks for ${d.keyAlgorithm}`;
  if (f.notAfter.getTime() - now.getTime() <= d.rotateBeforeDays * DAY_MS)
    return `the held intermediate expires at ${f.notAfter.toISOString()}, within ${d.rotateBeforeDays} days`;
  return undefined;
}

/** The status-report entry for a mesh whose cacerts holds `m` (already checked by renewalReason). */
export function issuedResult(mesh: string, m: CacertsMaterial): CertificateResult {
  const f = factsOf(m);
  return { mesh, state: "issued", ...(f.issuer ? { issuer: f.issuer } : {}), trustBundle: f.trustBundle, notAfter: f.notAfter.toISOString() };
}

/**
 * The cacerts Secret to server-side apply: type Opaque, the four files, meshplane's owner labels,
 * and annotations naming its issuer, its root bundle and when the roots last changed.
 */
export function cacertsSecret(d: CertificateDirective, scope: Scope, m: CacertsMaterial, marks: CacertsMarks): SecretObject {
  const f = factsOf(m);
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: {
      name: d.secretName,
      namespace: d.secretNamespace,
      labels: ownerLabels(scope),
      annotations: {
        [CACERTS_ANNOTATIONS.issuer]: f.issuer ?? "",
        [CACERTS_ANNOTATIONS.trustBundle]: f.trustBundle.join(","),
        ...(marks.rootsChangedAt ? { [CACERTS_ANNOTATIONS.rootsChangedAt]: marks.rootsChangedAt } : {}),
      },
    },
    type: "Opaque",
    data: { [KEYS.caCert]: b64(m.caCert), [KEYS.caKey]: b64(m.caKey), [KEYS.certChain]: b64(m.certChain), [KEYS.rootCert]: b64(m.rootCert) },
  };
}
