import { type CryptoKey, type JWK, exportJWK, generateKeyPair, importJWK } from "jose";
import type { Kube } from "../kube/kube";

/**
 * What the agent keeps in its cluster, in one Secret in its own namespace: its private key, the
 * tenant, cluster and cluster incarnation it registered as, and the generation and hash it last
 * applied — persisted so a restart cannot be rolled back to an older snapshot.
 */
export interface AgentState {
  tenant?: string;
  cluster?: string;
  /**
   * The incarnation the register answer named; every snapshot's audience must name it. Undefined
   * when the agent registered before incarnations existed, or with a cluster created before: then
   * only the audience without one is accepted (docs/agent.md).
   */
  incarnation?: string;
  privateJwk?: JWK;
  appliedGeneration: number;
  appliedHash?: string;
}

export const STATE_SECRET = "meshplane-agent-state";

const b64 = (s: string) => Buffer.from(s).toString("base64");
const unb64 = (s: string | undefined) => (s === undefined ? undefined : Buffer.from(s, "base64").toString());

interface SecretObject {
  apiVersion: "v1";
  kind: "Secret";
  metadata: { name: string; namespace: string; resourceVersion?: string; labels?: Record<string, string> };
  type: "Opaque";
  data?: Record<string, string>;
}

/** The Secret-backed state store; writes use the Secret's resourceVersion, so two writers cannot interleave. */
export class StateStore {
  private resourceVersion?: string;

  constructor(private readonly deps: { kube: Kube; namespace: string }) {}

  async load(): Promise<AgentState> {
    const secret = await this.deps.kube.read<SecretObject>({ apiVersion: "v1", kind: "Secret", namespace: this.deps.namespace, name: STATE_SECRET });
    if (!secret) return { appliedGeneration: 0 };
    this.resourceVersion = secret.metadata.resourceVersion;
    const d = secret.data ?? {};
    const key = unb64(d["key.jwk"]);
    return {
      ...(d.tenant ? { tenant: unb64(d.tenant) as string } : {}),
      ...(d.cluster ? { cluster: unb64(d.cluster) as string } : {}),
      ...(d.incarnation ? { incarnation: unb64(d.incarnation) as string } : {}),
      ...(key ? { privateJwk: JSON.parse(key) as JWK } : {}),
      appliedGeneration: Number(unb64(d.appliedGeneration) ?? "0"),
      ...(d.appliedHash ? { appliedHash: unb64(d.appliedHash) as string } : {}),
    };
  }

  async save(state: AgentState): Promise<void> {
    const secret: SecretObject = {
      apiVersion: "v1",
      kind: "Secret",
      metadata: {
        name: STATE_SECRET,
        namespace: this.deps.namespace,
        labels: { "app.kubernetes.io/name": "meshplane-agent" },
        ...(this.resourceVersion ? { resourceVersion: this.resourceVersion } : {}),
      },
      type: "Opaque",
      data: {
        ...(state.tenant ? { tenant: b64(state.tenant) } : {}),
        ...(state.cluster ? { cluster: b64(state.cluster) } : {}),
        ...(state.incarnation ? { incarnation: b64(state.incarnation) } : {}),
        ...(state.privateJwk ? { "key.jwk": b64(JSON.stringify(state.privateJwk)) } : {}),
        appliedGeneration: b64(String(state.appliedGeneration)),
        ...(state.appliedHash ? { appliedHash: b64(state.appliedHash) } : {}),
      },
    };
    const stored = this.resourceVersion ? await this.deps.kube.replace(secret) : await this.deps.kube.create(secret);
    this.resourceVersion = stored.metadata?.resourceVersion;
  }
}

/** A new ES256 key pair for the agent; the private half never leaves the cluster. */
export async function newAgentKey(): Promise<{ privateJwk: JWK; publicJwk: JWK }> {
  const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
  return { privateJwk: await exportJWK(privateKey), publicJwk: await exportJWK(publicKey) };
}

/** The signing key and public JWK from a stored private JWK. */
export async function loadAgentKey(privateJwk: JWK): Promise<{ privateKey: CryptoKey; publicJwk: JWK }> {
  const { d: _private, ...publicJwk } = privateJwk;
  return { privateKey: (await importJWK(privateJwk, "ES256")) as CryptoKey, publicJwk };
}
