import type { StoredResource } from "../../api/index";
import { compareStrings } from "../compare";

type Policy = StoredResource<"TrafficPolicy"> | StoredResource<"AccessPolicy">;

/** The acceptance number `policy` was given on `destination` by an earlier translation, if any. */
export function previousOrder(policy: Policy, destination: string): number | undefined {
  return policy.status?.destinations?.[destination]?.acceptanceOrder;
}

function byCreation(a: Policy, b: Policy): number {
  return compareStrings(a.metadata.createdAt, b.metadata.createdAt) || compareStrings(a.metadata.name, b.metadata.name);
}

/**
 * The order in which policies apply to one destination (docs/resources.md#trafficpolicy): those
 * already holding an acceptance number by that number, then the rest by creation time then name.
 * Numbers persist through statuses, so a policy accepted first keeps winning conflicts even when an
 * older policy is created later or renamed into an earlier position.
 */
export function acceptanceOrder<P extends Policy>(policies: readonly P[], destination: string): P[] {
  return [...policies].sort((a, b) => {
    const oa = previousOrder(a, destination);
    const ob = previousOrder(b, destination);
    if (oa !== undefined && ob !== undefined) return oa - ob || byCreation(a, b);
    if (oa !== undefined) return -1;
    if (ob !== undefined) return 1;
    return byCreation(a, b);
  });
}

/**
 * Hands out acceptance numbers on one destination: a policy keeps its previous number; one accepted
 * for the first time gets the next number after the highest held by any policy still selecting the
 * destination. Call `take` in acceptance order.
 */
export class AcceptanceCounter {
  private next: number;

  constructor(policies: readonly Policy[], destination: string) {
    let max = 0;
    for (const policy of policies) max = Math.max(max, previousOrder(policy, destination) ?? 0);
    this.next = max + 1;
  }

  /** The policy's number on the destination: its previous one, or a new one when `accepted`. */
  take(policy: Policy, destination: string, accepted: boolean): number | undefined {
    const previous = previousOrder(policy, destination);
    if (previous !== undefined || !accepted) return previous;
    return this.next++;
  }
}
