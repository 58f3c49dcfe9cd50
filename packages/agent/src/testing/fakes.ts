// Fakes for the agent's tests only (index.ts does not export this file). The Kubernetes fake
// records every call; the control-plane fake signs CSRs with a real CA from core's PKI module, so
// what the certificate stage checks is real X.509, not a stub; snapshots are signed with a real key.
import type { KubernetesObject } from "@kubernetes/client-node";
import {
  Canonicalizer,
  type CertificateDirective,
  type CsrRequest,
  type CsrResponse,
  type KubeObject,
  type RootCa,
  SNAPSHOT_TYPE,
  certificateInfo,
  createRootCa,
  fingerprintSha256,
  groupOf,
  objectKey,
  signIntermediate,
  snapshotAudience,
} from "@meshplane/core";
import { CompactSign, type JWK, exportJWK, generateKeyPair } from "jose";
import type { AgentClient } from "../control-plane/client";
import { ApiError } from "@meshplane/core/http-client";
import type { WorkloadRef } from "../discovery/mesh-workloads";
import { KubeError } from "../kube/failure";
import type { KubeClient, ObjectRef } from "../kube/kube";
import type { SyncDeps } from "../loop/deps";
import { type LoopMemory, newMemory } from "../loop/memory";
import { Metrics } from "../observability/metrics";
import { certificateStage } from "../stages/certificates";
import type { ApplyMode } from "../stages/env";
import { restartStage } from "../stages/restarts";

export const crypto = globalThis.crypto;
export const NOW = new Date("2031-03-15T12:00:00Z");
export const DAY = 24 * 60 * 60 * 1000;
export const SCOPE = { tenant: "acme", cluster: "cluster-1" };

type Obj = KubernetesObject & Record<string, unknown>;
export interface Call {
  verb: "get" | "apply" | "patch" | "list" | "delete";
  kind: string;
  namespace?: string;
  name?: string;
}

function merge(into: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  for (const [k, v] of Object.entries(patch)) {
    const cur = into[k];
    into[k] =
      v && typeof v === "object" && !Array.isArray(v) && cur && typeof cur === "object"
        ? merge({ ...(cur as Record<string, unknown>) }, v as Record<string, unknown>)
        : structuredClone(v);
  }
  return into;
}

const keyOf = (apiVersion: string, kind: string, namespace: string | undefined, name: string) => `${groupOf(apiVersion)} ${objectKey(kind, namespace, name)}`;

type ManagedField = { manager: string; operation: string; fieldsV1: { "f:metadata": { "f:labels": Record<string, object> } } };

/** Label → the managers owning it, from an object's managedFields. */
function ownersOf(obj: Obj): Map<string, string[]> {
  const owners = new Map<string, string[]>();
  for (const f of (obj.metadata?.managedFields ?? []) as unknown as ManagedField[])
    for (const k of Object.keys(f.fieldsV1["f:metadata"]["f:labels"])) owners.set(k.slice(2), [...(owners.get(k.slice(2)) ?? []), f.manager]);
  return owners;
}

/** managedFields recording `owners`: an Apply entry per manager (Update for a hand edit). */
function managedFieldsOf(owners: Map<string, string[]>): ManagedField[] {
  const byManager = new Map<string, Record<string, object>>();
  for (const [k, managers] of owners) for (const m of managers) byManager.set(m, { ...byManager.get(m), [`f:${k}`]: {} });
  return [...byManager].map(([manager, labels]) => ({
    manager,
    operation: manager.startsWith("kubectl") ? "Update" : "Apply",
    fieldsV1: { "f:metadata": { "f:labels": labels } },
  }));
}

/** An in-memory cluster that records verbs; `fail` makes chosen calls throw. Deployments bump their generation when patched. */
export class FakeKube implements KubeClient {
  readonly objects = new Map<string, Obj>();
  calls: Call[] = [];
  fail: (call: Call) => Error | undefined = () => undefined;

  /** Objects are keyed by group and objectKey: Istio's and Gateway API's Gateway of one name are two. */
  put(obj: Obj): void {
    this.objects.set(keyOf(obj.apiVersion ?? "", obj.kind as string, obj.metadata?.namespace, obj.metadata?.name as string), structuredClone(obj));
  }
  /** The object of `kind` (in the group of `apiVersion`, or any group when omitted). */
  get(kind: string, namespace: string | undefined, name: string, apiVersion?: string): Obj | undefined {
    if (apiVersion !== undefined) return this.objects.get(keyOf(apiVersion, kind, namespace, name));
    const key = objectKey(kind, namespace, name);
    return [...this.objects.entries()].find(([k]) => k.endsWith(` ${key}`))?.[1];
  }
  writes(): Call[] {
    return this.calls.filter((c) => c.verb === "apply" || c.verb === "patch" || c.verb === "delete");
  }
  private record(call: Call): void {
    this.calls.push(call);
    const error = this.fail(call);
    if (error) throw error;
  }

  async read<T extends KubernetesObject>(ref: ObjectRef): Promise<T | undefined> {
    this.record({ verb: "get", kind: ref.kind, namespace: ref.namespace, name: ref.name });
    const found = this.get(ref.kind, ref.namespace, ref.name, ref.apiVersion);
    return found ? (structuredClone(found) as T) : undefined;
  }
  async apply<T extends KubernetesObject>(obj: T): Promise<T> {
    this.record({ verb: "apply", kind: obj.kind as string, namespace: obj.metadata?.namespace, name: obj.metadata?.name });
    const current = this.get(obj.kind as string, obj.metadata?.namespace, obj.metadata?.name as string, obj.apiVersion);
    const next = merge(structuredClone(current ?? {}), obj as unknown as Record<string, unknown>) as Obj;
    this.put(next);
    return structuredClone(next) as unknown as T;
  }
  /**
   * Server-side apply of labels under `manager`, never forced, as the apiserver does it for the
   * labels alone: a label another manager set to another value is a 409; a label this manager owned
   * and no longer applies goes (unless another manager owns it too); an object that does not exist
   * is a 403 (the agent may not create Services). Owners are kept in `metadata.managedFields`.
   */
  async applyAs<T extends KubernetesObject>(obj: T, manager: string): Promise<T> {
    this.record({ verb: "apply", kind: obj.kind as string, namespace: obj.metadata?.namespace, name: obj.metadata?.name });
    const current = this.get(obj.kind as string, obj.metadata?.namespace, obj.metadata?.name as string, obj.apiVersion);
    if (!current) throw new KubeError(403, `services "${obj.metadata?.name}" is forbidden: cannot create`);
    const labels = { ...current.metadata?.labels };
    const owners = ownersOf(current);
    const wanted = obj.metadata?.labels ?? {};
    for (const [k, v] of Object.entries(wanted)) {
      const others = (owners.get(k) ?? []).filter((m) => m !== manager);
      if (labels[k] !== undefined && labels[k] !== v && others.length > 0)
        throw new KubeError(409, `Apply failed with 1 conflict: conflict with "${others[0]}": .metadata.labels.${k}`);
    }
    for (const [k, list] of owners) {
      if (!list.includes(manager) || k in wanted) continue;
      const rest = list.filter((m) => m !== manager);
      if (rest.length === 0) delete labels[k];
      owners.set(k, rest);
    }
    for (const [k, v] of Object.entries(wanted)) {
      labels[k] = v;
      owners.set(k, [...new Set([...(owners.get(k) ?? []).filter((m) => labels[k] === v || m === manager), manager])]);
    }
    const next = { ...current, metadata: { ...current.metadata, labels, managedFields: managedFieldsOf(owners) } } as Obj;
    this.put(next);
    return structuredClone(next) as unknown as T;
  }
  /** A hand edit of one label (`kubectl label --overwrite`, or its removal with undefined): `manager` alone owns it after. */
  label(kind: string, namespace: string, name: string, label: string, value: string | undefined, manager = "kubectl-label"): void {
    const current = this.get(kind, namespace, name) as Obj;
    const labels = { ...current.metadata?.labels };
    const owners = ownersOf(current);
    if (value === undefined) {
      delete labels[label];
      owners.delete(label);
    } else {
      labels[label] = value;
      owners.set(label, [manager]);
    }
    this.put({ ...current, metadata: { ...current.metadata, labels, managedFields: managedFieldsOf(owners) } } as Obj);
  }
  async patch(ref: ObjectRef, body: Record<string, unknown>): Promise<void> {
    this.record({ verb: "patch", kind: ref.kind, namespace: ref.namespace, name: ref.name });
    const current = this.get(ref.kind, ref.namespace, ref.name, ref.apiVersion);
    if (!current) throw new KubeError(404, `${ref.kind} ${ref.name} not found`);
    const next = merge(structuredClone(current), body) as Obj & { metadata: { generation?: number } };
    if (ref.kind === "Deployment") next.metadata.generation = (next.metadata.generation ?? 1) + 1;
    this.put(next);
  }
  async list(apiVersion: string, kind: string, _selector: string, namespace?: string): Promise<KubernetesObject[]> {
    this.record({ verb: "list", kind, namespace });
    return [...this.objects.values()]
      .filter((o) => o.kind === kind && groupOf(o.apiVersion ?? "") === groupOf(apiVersion) && (namespace === undefined || o.metadata?.namespace === namespace))
      .map((o) => structuredClone(o));
  }
  async delete(ref: ObjectRef): Promise<void> {
    this.record({ verb: "delete", kind: ref.kind, namespace: ref.namespace, name: ref.name });
    this.objects.delete(keyOf(ref.apiVersion, ref.kind, ref.namespace, ref.name));
  }

  /** A Deployment as a controller leaves it after a finished rollout. */
  deployment(namespace: string, name: string, annotations: Record<string, string> = {}): void {
    this.put({
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name, namespace, generation: 1 },
      spec: { replicas: 1, template: { metadata: { annotations } } },
      status: { observedGeneration: 1, replicas: 1, updatedReplicas: 1, availableReplicas: 1 },
    });
  }
  /** What the Deployment controller does once new pods are up. */
  settle(): void {
    for (const o of this.objects.values()) {
      const d = o as Obj & { metadata: { generation?: number }; status?: Record<string, number> };
      if (o.kind === "Deployment" && d.status) d.status.observedGeneration = d.metadata.generation ?? 1;
    }
  }
}

/** A control plane holding a VirtualMesh's root CA(s); it signs with `signer` and trusts all `roots`. */
export class FakeControlPlane implements AgentClient {
  requests: CsrRequest[] = [];
  /** Set to refuse every CSR of a mesh, as the control plane answers a CSR it will not sign. */
  refuse = new Set<string>();
  /** Alters the answer before it is returned (a broken or malicious control plane). */
  tamper: (answer: CsrResponse, request: CsrRequest) => Promise<CsrResponse> | CsrResponse = (a) => a;
  now = NOW;

  constructor(
    public signer: RootCa,
    public roots: string[],
    private readonly identities: Record<string, string>,
  ) {}

  static async create(identities: Record<string, string>, rootSince?: Date): Promise<FakeControlPlane> {
    const root = await newRoot("Root A", rootSince);
    return new FakeControlPlane(root, [root.certPem], identities);
  }

  async csr(request: CsrRequest): Promise<CsrResponse> {
    this.requests.push(request);
    if (this.refuse.has(request.mesh)) throw new ApiError(403, `POST /v1/agent/csr: 403 mesh ${request.mesh} has no certificate directive for this cluster`);
    const spiffeId = this.identities[request.mesh] as string;
    const { certPem } = await signIntermediate(crypto, {
      csrPem: request.csr,
      issuer: { certPem: this.signer.certPem, privateKey: this.signer.keyPair.privateKey },
      spiffeId,
      ttlDays: 365,
      now: this.now,
    });
    const answer = {
      certChain: `${certPem}${this.signer.certPem}`,
      rootBundle: this.roots.join(""),
      issuer: fingerprintSha256(this.signer.certPem),
      notAfter: certificateInfo(certPem).notAfter.toISOString(),
    };
    return this.tamper(answer, request);
  }
  async snapshot(): Promise<never> {
    throw new Error("not used by these tests");
  }
  async status(): Promise<{ changed: boolean }> {
    return { changed: true };
  }
  /** The directive the control plane would put in a snapshot for `mesh` now. */
  directive(mesh: string, overrides: Partial<CertificateDirective> = {}): CertificateDirective {
    return {
      mesh,
      virtualMesh: "global",
      identity: this.identities[mesh] as string,
      secretNamespace: `ns-${mesh}`,
      secretName: "cacerts",
      ttlDays: 365,
      rotateBeforeDays: 30,
      keyAlgorithm: "ECDSA_P256",
      autoRestartPods: false,
      issuer: fingerprintSha256(this.signer.certPem),
      trustBundle: this.roots.map((r) => fingerprintSha256(r)).sort(),
      ...overrides,
    };
  }
}

/** A root CA valid from `since` for ten years. */
export const newRoot = (name: string, since = new Date(NOW.getTime() - DAY)): Promise<RootCa> =>
  createRootCa(crypto, { keyAlgorithm: "ECDSA_P256", ttlDays: 3650, orgName: "meshplane", commonName: name, now: since });

/** Everything a stage needs, around the fakes; `lines` collects every log line as written. */
export function fakeDeps(kube: KubeClient, client: AgentClient, overrides: Partial<SyncDeps> = {}): SyncDeps & { lines: string[] } {
  const lines: string[] = [];
  const log = {
    info: (msg: string, f?: object) => lines.push(JSON.stringify({ msg, ...f })),
    error: (msg: string, f?: object) => lines.push(JSON.stringify({ msg, ...f })),
  };
  return {
    client,
    kube,
    log,
    lines,
    stateStore: { save: async () => undefined },
    state: { appliedGeneration: 1 },
    scope: SCOPE,
    trustedKeys: [],
    metrics: new Metrics(),
    pollIntervalMs: 1000,
    pollJitter: 0,
    resyncIntervalMs: 10_000,
    isLeader: () => true,
    certificates: { enabled: true, adoptExistingCacerts: false, autoRestartPods: false, restartPauseMs: 30_000 },
    meshWorkloads: (): WorkloadRef[] => [],
    crypto,
    now: () => NOW,
    ...overrides,
  };
}

/** What the stages of one cycle run over: `deps`, the loop's `memory`, the cycle's time and apply mode. */
export interface StageRun {
  deps: SyncDeps;
  memory: LoopMemory;
  now: Date;
  mode: ApplyMode;
}

/** A cycle over `deps` and `memory` at `now`, as a resync (apply mode "all") unless told otherwise. */
export function cycleAt(deps: SyncDeps, memory = newMemory(), now = NOW, mode: ApplyMode = "all"): StageRun {
  return { deps, memory, now, mode };
}

/** Runs the certificate stage on `run.memory`'s directives and meshes, and keeps its meshes there, as runCycle does. */
export async function runCertificateStage(run: StageRun): Promise<void> {
  const { memory } = run;
  memory.meshes = (await certificateStage(run.deps, { directives: memory.directives, meshes: memory.meshes, mode: run.mode, now: run.now })).meshes;
}

/** Runs the restart stage on `run.memory`'s meshes, and keeps its meshes there, as runCycle does. */
export async function runRestartStage(run: StageRun): Promise<void> {
  run.memory.meshes = (await restartStage(run.deps, { meshes: run.memory.meshes, now: run.now })).meshes;
}

/**
 * A snapshot signing key (kid `k1`) and its public JWK. `sign` makes a snapshot for SCOPE, issued at
 * NOW and valid for an hour, whose audience names `incarnation` (undefined: the audience of a
 * cluster created before incarnations).
 */
export async function snapshotSigner() {
  const { privateKey, publicKey } = await generateKeyPair("ES256");
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: "k1" };
  const sign = (generation: number, objects: KubeObject[], certificates: CertificateDirective[], incarnation?: string) => {
    const iat = Math.floor(NOW.getTime() / 1000);
    const payload = {
      iss: "https://cp",
      aud: snapshotAudience(SCOPE.tenant, SCOPE.cluster, incarnation),
      tenant: SCOPE.tenant,
      cluster: SCOPE.cluster,
      generation,
      iat,
      exp: iat + 3600,
      hash: new Canonicalizer().contentHash(objects, certificates),
      objects,
      certificates,
    };
    return new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
      .setProtectedHeader({ alg: "ES256", kid: "k1", typ: SNAPSHOT_TYPE })
      .sign(privateKey);
  };
  return { jwk, sign };
}
