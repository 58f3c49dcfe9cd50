import type { Destination } from "../../api/index";
import type { AccessUnit } from "./access-policy";
import type { TrafficUnit } from "./traffic-policy";
import type { GlobalService } from "../virtual-mesh/ambient-federation";
import type { FederationPlan } from "../virtual-mesh/federation-plan";

/** Policy name → the errors that keep it off one copy of a global service, sorted by policy name. */
export type CopyDrift = ReadonlyMap<string, readonly string[]>;

const NONE: CopyDrift = new Map();

/** The least a policy is: its name, and whether it has policy-wide errors (then it is applied nowhere anyway). */
interface Named {
  metadata: { name: string };
}

/** Each copy of a global service, by destination name, with the service it is a copy of. */
export function globalCopies(plan: FederationPlan): Map<string, GlobalService> {
  const out = new Map<string, GlobalService>();
  for (const service of plan.ambient.globalServices) {
    if (service.destinations.length < 2) continue;
    for (const d of service.destinations) out.set(d.metadata.name, service);
  }
  return out;
}

function where(d: Destination): string {
  return `mesh ${d.spec.mesh} (cluster ${d.spec.cluster})`;
}

const FIX = "select the service in every member (a destinationSelector without clusters, or a ref per cluster), or stop federating it";

function add(out: Map<string, Map<string, string[]>>, destination: string, policy: string, error: string): void {
  let drift = out.get(destination);
  if (drift === undefined) out.set(destination, (drift = new Map()));
  const errors = drift.get(policy);
  if (errors === undefined) drift.set(policy, [error]);
  else errors.push(error);
}

function sorted(out: Map<string, Map<string, string[]>>): Map<string, CopyDrift> {
  const result = new Map<string, CopyDrift>();
  for (const [d, drift] of out) result.set(d, new Map([...drift.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));
  return result;
}

/**
 * Policies that select some copies of a global service and not others
 * (docs/ambient.md#policies-on-a-global-service): each member's Istio reads only its own cluster's
 * HTTPRoutes and AuthorizationPolicies, so such a policy would hold for the callers of some
 * clusters only. Returns, by selected copy, each such policy with the error that keeps it off that
 * copy, naming the members whose copy it does not select. `policiesOf` gives the policies selecting
 * a destination; `valid` whether a policy is free of policy-wide errors (only those are checked).
 */
export function selectionDrift<P extends Named>(
  copies: ReadonlyMap<string, GlobalService>,
  policiesOf: (destination: string) => readonly P[] | undefined,
  valid: (p: P) => boolean,
): Map<string, CopyDrift> {
  const out = new Map<string, Map<string, string[]>>();
  for (const service of new Set(copies.values())) {
    const selecting = new Map<string, Set<string>>();
    for (const d of service.destinations) {
      for (const p of policiesOf(d.metadata.name) ?? []) {
        if (!valid(p)) continue;
        const names = selecting.get(p.metadata.name) ?? new Set<string>();
        names.add(d.metadata.name);
        selecting.set(p.metadata.name, names);
      }
    }
    for (const [policy, names] of selecting) {
      const missed = service.destinations.filter((d) => !names.has(d.metadata.name));
      if (missed.length === 0) continue;
      const error = `global service ${service.namespace}/${service.name} of VirtualMesh ${service.virtualMesh.metadata.name} also runs in ${missed.map(where).join(", ")}, where this policy does not select it; each member's Istio applies only its own cluster's HTTPRoutes and AuthorizationPolicies, so calls handled there would not get this policy and the service would behave differently by the caller's cluster: ${FIX}`;
      for (const d of service.destinations) if (names.has(d.metadata.name)) add(out, d.metadata.name, policy, error);
    }
  }
  return sorted(out);
}

/**
 * Policies that select every copy of a global service but are INVALID on some of them
 * (docs/ambient.md#policies-on-a-global-service): applied on the others only, callers would be
 * treated differently by their cluster, so the policy is kept off those too. `rejected(d, p)` says
 * whether policy `p` was INVALID on copy `d` when applied with `first` (the selection drift) alone;
 * `byDestination` gives the policies selecting each destination.
 * Returns, by copy, the drift to apply it with: `first`'s and these.
 */
export function invalidElsewhere(
  copies: ReadonlyMap<string, GlobalService>,
  first: ReadonlyMap<string, CopyDrift>,
  byDestination: ReadonlyMap<string, readonly Named[]>,
  rejected: (destination: string, policy: string) => boolean,
): Map<string, CopyDrift> {
  const policiesOf = (d: string) => (byDestination.get(d) ?? []).map((p) => p.metadata.name);
  const out = new Map<string, Map<string, string[]>>();
  for (const [d, drift] of first) for (const [p, errors] of drift) for (const e of errors) add(out, d, p, e);
  for (const service of new Set(copies.values())) {
    const names = service.destinations.map((d) => d.metadata.name);
    const everywhere = new Set(policiesOf(names[0] as string));
    for (const name of names.slice(1)) {
      const here = new Set(policiesOf(name));
      for (const p of everywhere) if (!here.has(p)) everywhere.delete(p);
    }
    for (const policy of everywhere) {
      if (names.some((d) => first.get(d)?.has(policy))) continue;
      const bad = service.destinations.filter((d) => rejected(d.metadata.name, policy));
      if (bad.length === 0 || bad.length === names.length) continue;
      const error = `this policy is INVALID on ${bad.map((d) => `${d.metadata.name} (mesh ${d.spec.mesh}, cluster ${d.spec.cluster})`).join(", ")}, ${bad.length === 1 ? "a copy" : "copies"} of global service ${service.namespace}/${service.name} of VirtualMesh ${service.virtualMesh.metadata.name}; each member's Istio applies only its own cluster's HTTPRoutes and AuthorizationPolicies, so applied on this copy alone the policy would hold for the callers of some clusters only: fix it there (its errors there say how), or stop federating the service`;
      for (const d of service.destinations) if (!bad.includes(d)) add(out, d.metadata.name, policy, error);
    }
  }
  return sorted(out);
}

/** The drift of one destination, none when it has none. */
export function driftOf(drift: ReadonlyMap<string, CopyDrift>, destination: string): CopyDrift {
  return drift.get(destination) ?? NONE;
}

/** A copy's drift as text, for the keys of kept units ("" without drift). */
export function driftKey(drift: CopyDrift): string {
  if (drift.size === 0) return "";
  return [...drift.entries()].map(([p, errors]) => `${p}\u0000${errors.join("\u0000")}`).join("\u0001");
}

/** Whether two drifts of one copy are the same. */
export function sameDrift(a: CopyDrift, b: CopyDrift): boolean {
  return a === b || driftKey(a) === driftKey(b);
}

/** Whether `p` may be applied here: false, with its errors reported, when `drift` keeps it off this copy of a global service. */
export function keptOff<P extends { metadata: { name: string } }>(p: P, drift: CopyDrift, report: (p: P, error: string) => void): boolean {
  const errors = drift.get(p.metadata.name);
  if (errors === undefined) return true;
  for (const e of errors) report(p, e);
  return false;
}

/** Whether TrafficPolicy `policy` was INVALID in `unit` (held PENDING or FAILED is not INVALID). */
export function trafficRejected(unit: TrafficUnit | undefined, policy: string): boolean {
  const o = unit?.outcomes.get(policy);
  return o !== undefined && !o.accepted && o.state === undefined;
}

/** Whether AccessPolicy `policy` was INVALID in `unit`. */
export function accessRejected(unit: AccessUnit | undefined, policy: string): boolean {
  return unit !== undefined && !unit.accepted.has(policy);
}
