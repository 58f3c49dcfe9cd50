import type { Reporter } from "./reporter";

/** How one policy fared on one destination it selects. */
export interface DestinationOutcome {
  accepted: boolean;
  /** Acceptance number (TrafficPolicy only): kept from earlier translations, new when first accepted. */
  order?: number | undefined;
  /**
   * Not accepted only because calls it configures cannot go through a VirtualMesh yet: PENDING while
   * shared trust is being issued, FAILED when an agent could not install it. Otherwise INVALID.
   */
  state?: "PENDING" | "FAILED" | undefined;
}

/** What status building needs about one TrafficPolicy or AccessPolicy besides reported errors. */
export interface PolicyOutcome {
  /** Selected destinations by name, in name order. */
  destinations: Map<string, DestinationOutcome>;
  /** TrafficPolicy with a sourceSelector: names of matched source workloads, sorted (capped). */
  workloads?: string[] | undefined;
}

/** What a policy's status is made of: how it fared on each destination, and the errors reported about it. */
export interface PolicyResult {
  outcome: PolicyOutcome;
  reporter: Reporter;
}
