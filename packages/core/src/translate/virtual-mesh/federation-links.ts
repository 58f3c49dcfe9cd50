import type { Destination, Mesh, ResourceStatus } from "../../api/index";
import { eastWestGateways } from "./east-west-gateways";
import type { FederationPlan } from "./federation-plan";
import type { VirtualMesh } from "./membership";
import type { Model } from "../input/model";
import { trustCarries } from "./trust";
import { refusalText, refusedTrustDomains } from "./trust-domains";

/** Why a VirtualMesh cannot carry calls from one mesh to another now. */
export interface LinkProblem {
  /**
   * What it makes a policy relying on the calls (docs/translation.md, "Policies that rely on
   * federation"): PENDING while shared trust is being issued, FAILED when an agent could not install
   * it, INVALID when a mesh's settings refuse the caller.
   */
  state: "PENDING" | "FAILED" | "INVALID";
  /** Names the VirtualMesh, the mesh and what to do. */
  reason: string;
}

const NONE: readonly LinkProblem[] = [];

/** What a VirtualMesh's status says of one mesh it lists: its errors and, with shared trust, the member's trust. */
export type MeshStatus = NonNullable<ResourceStatus["meshes"]>[string];

function lists(vm: VirtualMesh, mesh: Mesh): boolean {
  return vm.spec.meshes.some((m) => m.name === mesh.metadata.name);
}

/**
 * Whether the VirtualMeshes of one world can carry a call from a mesh's clients to a destination in
 * another cluster, and why not. A federated call is mTLS from the client's sidecar to the server's
 * sidecar, passed through the server's east-west gateway untouched (AUTO_PASSTHROUGH), so it needs:
 * the server's mesh to accept the client's trust domain (the client pins the server's SPIFFE IDs, so
 * the other direction plays no part), and with shared trust both meshes holding certificates from
 * the VirtualMesh's root (trust ISSUED or ROTATING). What a VirtualMesh's status already says of each
 * mesh (its errors, its trust) is read from there, not worked out again. Answers are kept per pair of
 * meshes: they depend on the meshes, the VirtualMeshes and their CAs only, which a world never changes.
 */
export class FederationLinks {
  private readonly known = new Map<string, readonly LinkProblem[]>();
  private anyProblem: boolean | undefined;

  /**
   * `refusals`: whether any member mesh refuses a fellow member's trust domain (`checkTrustDomains`);
   * `meshStatus(vm, mesh)`: the VirtualMesh's status for a mesh it lists.
   */
  constructor(
    private readonly model: Model,
    private readonly plan: FederationPlan,
    private readonly refusals: boolean,
    private readonly meshStatus: (vm: VirtualMesh, mesh: string) => MeshStatus | undefined,
  ) {}

  /** Whether no two members of any VirtualMesh have a problem calling each other (then `problems` is always empty). */
  get clear(): boolean {
    this.anyProblem ??= this.refusals || [...this.plan.members.values()].some(({ mesh, virtualMesh }) => this.untrusted(mesh, virtualMesh) !== undefined);
    return !this.anyProblem;
  }

  /**
   * What stands between `from`'s clients and `target` through federation: nothing in the target's
   * own cluster, nor where the target is not federated to `from` at all (that is `unreachable`).
   */
  problems(from: Mesh, target: Destination): readonly LinkProblem[] {
    if (target.spec.cluster === from.spec.cluster) return NONE;
    const exported = this.plan.exports.get(target.metadata.name);
    if (exported === undefined || !exported.targetNames.has(from.metadata.name)) return NONE;
    const server = this.model.meshOf(target);
    const key = `${from.metadata.name}\u0000${server.metadata.name}`;
    let found = this.known.get(key);
    if (found === undefined) this.known.set(key, (found = this.find(from, server, exported.virtualMesh)));
    return found;
  }

  private find(from: Mesh, server: Mesh, vm: VirtualMesh): LinkProblem[] {
    const name = vm.metadata.name;
    const out: LinkProblem[] = [];
    const refused = refusedTrustDomains(server, [from]);
    if (refused.length > 0)
      out.push({ state: "INVALID", reason: `VirtualMesh ${name} is INVALID for mesh ${server.metadata.name}: ${refusalText(server, refused)}` });
    for (const mesh of [from, server]) {
      const problem = this.untrusted(mesh, vm);
      if (problem !== undefined) out.push(problem);
    }
    return out;
  }

  /** With shared trust, why `mesh`'s certificates do not chain to `vm`'s root yet; undefined when they do or trust is not shared. */
  private untrusted(mesh: Mesh, vm: VirtualMesh): LinkProblem | undefined {
    // The status has a mesh's trust only when the mesh is a member and trust is shared.
    const trust = this.meshStatus(vm, mesh.metadata.name)?.trust;
    if (trust === undefined || trustCarries(trust)) return undefined;
    const failed = trust.state === "FAILED";
    const what = failed
      ? "its agent could not install the VirtualMesh's intermediate CA"
      : "its workloads' certificates do not chain to the VirtualMesh's root yet";
    return {
      state: failed ? "FAILED" : "PENDING",
      reason: `VirtualMesh ${vm.metadata.name} is ${failed ? "FAILED" : "PENDING"} for mesh ${mesh.metadata.name} (${what}): ${(trust.errors ?? []).join("; ")}`,
    };
  }

  /**
   * Why `target` (in another cluster) is not reachable from `from`'s clients when a VirtualMesh lists
   * both meshes: that VirtualMesh and what keeps it from federating the target there. Undefined when
   * no VirtualMesh lists both.
   */
  unreachable(from: Mesh, target: Destination): string | undefined {
    const server = this.model.meshOf(target);
    const vm = this.model.virtualMeshes.find((v) => lists(v, from) && lists(v, server));
    if (vm === undefined) return undefined;
    const name = vm.metadata.name;
    const outside = [server, from].filter((m) => this.plan.members.get(m.metadata.name)?.virtualMesh !== vm);
    if (outside.length > 0) {
      const why = outside.flatMap((m) => {
        const errors = this.meshStatus(vm, m.metadata.name)?.errors ?? [];
        return errors.length > 0 ? errors : [`mesh ${m.metadata.name} is not a member of it`];
      });
      return `VirtualMesh ${name} does not carry it: ${why.join("; ")}`;
    }
    if (this.plan.ambient.virtualMeshes.has(vm)) {
      return `VirtualMesh ${name} federates ambient meshes: Istio merges a global service of every member cluster into one, called by its own name (docs/ambient.md#ambient-multicluster), so no policy routes to one cluster's copy`;
    }
    if (eastWestGateways(server, vm.spec.federation?.eastWestGateways).length === 0) {
      return `VirtualMesh ${name} does not carry it: mesh ${server.metadata.name} has no east-west gateway with a TLS port and an address`;
    }
    return `VirtualMesh ${name} does not carry it: its federation.selectors do not export it to mesh ${from.metadata.name}`;
  }
}
