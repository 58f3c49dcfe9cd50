import {
  type CertificateDirective,
  type CsrResponse,
  type WebCrypto,
  type WebCryptoKey,
  certificateInfo,
  createCsr,
  exportPrivateKeyPem,
  fingerprintSha256,
  generateKeyPair,
  splitPemBundle,
  verifyChain,
} from "@meshplane/core";
import { type CacertsMaterial, CertificateError, rootFingerprints, sameList } from "./cacerts";
import type { AgentClient } from "../control-plane/client";
import { publicKeyDer } from "./x509";

export interface IssueDeps {
  client: Pick<AgentClient, "csr">;
  crypto: WebCrypto;
  now: Date;
}

/**
 * A new intermediate CA for the mesh of `d` (docs/agent.md#stages, item 6): the key is generated here and
 * never leaves the agent — only a CSR for `d.identity` is sent to `POST /v1/agent/csr`. The answer is
 * used only when it certifies our key, names exactly `d.identity`, was signed by `d.issuer`, brings
 * exactly the roots `d.trustBundle` names, and chains to one of them at `now`. Returns the four
 * cacerts files; throws CertificateError for a refused answer and passes the client's errors on.
 */
export async function issueIntermediate(deps: IssueDeps, d: CertificateDirective): Promise<CacertsMaterial> {
  const keyPair = await generateKeyPair(deps.crypto, d.keyAlgorithm);
  const csr = await createCsr(deps.crypto, { keyPair, spiffeId: d.identity });
  const answer = await deps.client.csr({ mesh: d.mesh, csr });
  const { chain, roots } = await checkAnswer(deps, d, answer, keyPair.publicKey);
  return {
    caCert: chain[0] as string,
    caKey: await exportPrivateKeyPem(deps.crypto, keyPair.privateKey),
    certChain: chain.join(""),
    rootCert: roots.join(""),
  };
}

function refuse(d: CertificateDirective, why: string): never {
  throw new CertificateError(`the control plane's answer to the CSR for mesh ${d.mesh} was refused, nothing was written: ${why}`);
}

/** The answer's chain and roots as normalised PEM, or CertificateError saying what is wrong with it. */
async function checkAnswer(
  deps: IssueDeps,
  d: CertificateDirective,
  answer: CsrResponse,
  publicKey: WebCryptoKey,
): Promise<{ chain: string[]; roots: string[] }> {
  let chain: string[];
  let roots: string[];
  try {
    chain = splitPemBundle(answer.certChain);
    roots = splitPemBundle(answer.rootBundle);
  } catch (error) {
    return refuse(d, `it is not a PEM bundle of certificates (${(error as Error).message})`);
  }
  const [leaf, issuer] = chain;
  if (leaf === undefined || issuer === undefined) return refuse(d, "certChain must hold the intermediate and its issuers up to the root");
  if (roots.length === 0) return refuse(d, "rootBundle holds no certificate");
  const ours = Buffer.from(await deps.crypto.subtle.exportKey("spki", publicKey));
  if (!ours.equals(publicKeyDer(leaf))) return refuse(d, "the certificate does not carry the key this agent generated");
  const info = certificateInfo(leaf);
  if (!info.isCa) return refuse(d, "the certificate is not a CA");
  if (info.uriSans.length !== 1 || info.uriSans[0] !== d.identity) return refuse(d, `the certificate names [${info.uriSans.join(", ")}], not ${d.identity}`);
  const signer = fingerprintSha256(issuer);
  if (signer !== d.issuer || answer.issuer !== d.issuer) return refuse(d, `it was issued by ${signer}, the snapshot names ${d.issuer}`);
  const bundle = rootFingerprints(answer.rootBundle);
  if (!sameList(bundle, d.trustBundle))
    return refuse(d, `rootBundle holds [${bundle.join(", ")}], the snapshot's trust bundle is [${d.trustBundle.join(", ")}]`);
  const verified = await verifyChain(deps.crypto, { leafPem: leaf, intermediatePems: chain.slice(1), rootPems: roots, now: deps.now });
  if (!verified) return refuse(d, "the chain does not verify to a root of rootBundle");
  return { chain, roots };
}
