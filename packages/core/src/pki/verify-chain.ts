import { caProblem, isSignedBy, pathLenProblem, validityProblem } from "./ca-checks";
import type { WebCrypto } from "./key-algorithms";
import { type Certificate, parseCertificate } from "./pem";

// Deeper than any hierarchy meshplane builds or accepts; bounds the search on hostile input.
const MAX_DEPTH = 10;

export interface VerifyChainOptions {
  leafPem: string;
  /** Untrusted certificates that may link the leaf to a root, in any order (Istio's cert-chain.pem). */
  intermediatePems: readonly string[];
  /** Trust anchors: one or more root certificates (a trust bundle, split with splitPemBundle). */
  rootPems: readonly string[];
  now: Date;
}

/**
 * Whether the leaf chains to one of the roots at `now`: each link's names match and its signature
 * verifies, every certificate (leaf and root included) is within its validity, every issuer is a CA
 * with keyCertSign and a pathLen that allows the CAs below it. This is the check a peer proxy makes
 * with a mesh's trust bundle, so tests use it to prove cross-mesh trust. Returns false for a chain
 * that does not verify; only unparsable PEM throws (PkiError naming `leafPem`,
 * `intermediatePems[i]` or `rootPems[i]`).
 */
export async function verifyChain(crypto: WebCrypto, options: VerifyChainOptions): Promise<boolean> {
  const leaf = parseCertificate(options.leafPem, "leafPem");
  const intermediates = options.intermediatePems.map((pem, i) => parseCertificate(pem, `intermediatePems[${i}]`));
  const roots = options.rootPems.map((pem, i) => parseCertificate(pem, `rootPems[${i}]`));
  if (validityProblem(leaf, options.now) !== undefined) return false;
  return climb(crypto, leaf, 0, new Set(), { intermediates, roots, now: options.now });
}

interface Pool {
  intermediates: Certificate[];
  roots: Certificate[];
  now: Date;
}

/**
 * Depth-first search upward from `cert`, which has `casBelow` CA certificates under it: a root that
 * issued it ends the search; otherwise each unused intermediate that issued it is tried in turn, so
 * an old and a new intermediate with the same name (during rotation) cannot hide each other.
 */
async function climb(crypto: WebCrypto, cert: Certificate, casBelow: number, used: Set<Certificate>, pool: Pool): Promise<boolean> {
  if (casBelow > MAX_DEPTH) return false;
  for (const root of pool.roots) {
    if (usableIssuer(root, casBelow, pool.now) && (await isSignedBy(crypto, cert, root))) return true;
  }
  for (const candidate of pool.intermediates) {
    if (used.has(candidate) || !usableIssuer(candidate, casBelow, pool.now)) continue;
    if (!(await isSignedBy(crypto, cert, candidate))) continue;
    if (await climb(crypto, candidate, casBelow + 1, new Set([...used, candidate]), pool)) return true;
  }
  return false;
}

function usableIssuer(issuer: Certificate, casBelow: number, now: Date): boolean {
  return caProblem(issuer) === undefined && validityProblem(issuer, now) === undefined && pathLenProblem(issuer, casBelow) === undefined;
}
