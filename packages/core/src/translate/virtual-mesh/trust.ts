import type { CertificateResult } from "../../api/index";
import type { Membership, VirtualMesh } from "./membership";

/** Root rotation phases (docs/shared-trust.md#rotation); in every one, each member's certificates verify for every other member. */
export const ROTATION_PHASES = ["STABLE", "ADDING_ROOT", "SWITCHING", "DROPPING"] as const;
export type RotationPhase = (typeof ROTATION_PHASES)[number];

/**
 * The control plane's certificate authority of one VirtualMesh, as translation sees it: which
 * certificate signs intermediates now (`issuer`), the root it chains to, and the roots every member
 * must trust now. `AWAITING_CERTIFICATE`: bring-your-own PKI whose signed CA certificate has not been
 * uploaded yet, so nothing can be issued.
 */
export interface VirtualMeshTrust {
  /** The VirtualMesh's uid: a CA made for an earlier VirtualMesh of the same name is not this one's. */
  uid: string;
  state: "READY" | "AWAITING_CERTIFICATE";
  issuer?: string;
  rootFingerprint?: string;
  rootNotAfter?: string;
  trustBundle: string[];
  phase: RotationPhase;
}

/** Per member mesh, what its status says of trust (docs/shared-trust.md#status). */
export interface MeshTrustStatus {
  state: "PENDING" | "ISSUED" | "ROTATING" | "FAILED";
  phase?: RotationPhase;
  rootFingerprint?: string;
  notAfter?: string;
  errors?: string[];
}

/** Whether a member mesh's trust lets its workloads call and be called by other members: ISSUED, or ROTATING (every phase keeps calls working). */
export function trustCarries(status: MeshTrustStatus): boolean {
  return status.state === "ISSUED" || status.state === "ROTATING";
}

/** The CA of `vm` when it belongs to this incarnation of the VirtualMesh; undefined otherwise. */
export function trustOf(vm: VirtualMesh, trust: Readonly<Record<string, VirtualMeshTrust>> | undefined): VirtualMeshTrust | undefined {
  const t = trust?.[vm.metadata.name];
  return t?.uid === vm.metadata.uid ? t : undefined;
}

function sameList(a: readonly string[] | undefined, b: readonly string[]): boolean {
  return a !== undefined && a.length === b.length && a.every((x, i) => x === b[i]);
}

/**
 * The agents' certificate reports (TranslateInput.certificates: per cluster, per mesh) looked up by
 * cluster and mesh; undefined when that cluster's agent reported nothing for the mesh.
 */
export function certificateReports(
  certificates: Readonly<Record<string, readonly CertificateResult[]>> | undefined,
): (cluster: string, mesh: string) => CertificateResult | undefined {
  const byCluster = new Map(Object.entries(certificates ?? {}).map(([cluster, list]) => [cluster, new Map(list.map((r) => [r.mesh, r]))]));
  return (cluster, mesh) => byCluster.get(cluster)?.get(mesh);
}

/** Whether the agent's report says the mesh holds what the CA asks for now. */
export function inStep(report: CertificateResult | undefined, trust: VirtualMeshTrust): boolean {
  return report?.state === "issued" && report.issuer === trust.issuer && sameList(report.trustBundle, trust.trustBundle);
}

/**
 * The trust status of a member mesh with shared trust, from the VirtualMesh's CA and the agent's
 * latest certificate report for the mesh. ISSUED: the mesh holds an intermediate from the current
 * issuer and exactly the current bundle. ROTATING: a root rotation is under way; every phase keeps
 * cross-mesh calls working, so the mesh is still usable. PENDING: nothing usable yet (no CA, no
 * uploaded CA certificate, or the agent has not issued). FAILED: the agent reported why it could not.
 */
export function meshTrustStatus(member: Membership, trust: VirtualMeshTrust | undefined, report: CertificateResult | undefined): MeshTrustStatus {
  const vm = member.virtualMesh.metadata.name;
  if (trust === undefined) return { state: "PENDING", errors: [`the root CA of VirtualMesh ${vm} is being created`] };
  if (trust.state === "AWAITING_CERTIFICATE") {
    return {
      state: "PENDING",
      errors: [
        `VirtualMesh ${vm} brings its own PKI: sign the CSR from GET /v1/virtualmeshes/${vm}/ca/csr with your CA and upload the chain with PUT /v1/virtualmeshes/${vm}/ca/certificate`,
      ],
    };
  }
  const base = { phase: trust.phase, ...(trust.rootFingerprint === undefined ? {} : { rootFingerprint: trust.rootFingerprint }) };
  const notAfter = report?.notAfter === undefined ? {} : { notAfter: report.notAfter };
  if (report?.state === "failed") return { state: "FAILED", ...base, ...notAfter, errors: [report.error ?? "the agent could not issue the intermediate"] };
  if (inStep(report, trust)) return { state: trust.phase === "STABLE" ? "ISSUED" : "ROTATING", ...base, ...notAfter };
  if (report?.state === "issued" && trust.phase !== "STABLE") return { state: "ROTATING", ...base, ...notAfter };
  const cluster = member.mesh.spec.cluster;
  const why =
    report === undefined
      ? `waiting for the agent of cluster ${cluster} to issue the mesh's intermediate CA`
      : `the agent of cluster ${cluster} has not yet installed the current intermediate CA`;
  return { state: "PENDING", ...base, ...notAfter, errors: [report?.error ?? why] };
}
