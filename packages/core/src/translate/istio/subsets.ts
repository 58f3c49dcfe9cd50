import type { Destination } from "../../api/index";
import { compareStrings } from "../compare";
import { subsetName } from "../output/naming";
import type { Subset } from "./types";

/**
 * Subsets trafficShift policies route to, per target destination, with the policies that need
 * them. Collected while policies are applied to *their* destinations and read when the *target's*
 * DestinationRule is rendered.
 */
export class SubsetDemands {
  private readonly byDestination = new Map<string, { subsets: Map<string, Subset>; parents: Set<string> }>();

  add(destination: string, labels: Record<string, string>, policy: string): void {
    const entry = this.byDestination.get(destination) ?? { subsets: new Map(), parents: new Set() };
    this.byDestination.set(destination, entry);
    const name = subsetName(labels);
    if (!entry.subsets.has(name)) entry.subsets.set(name, { name, labels: { ...labels } });
    entry.parents.add(policy);
  }

  subsets(destination: string): Subset[] {
    return [...(this.byDestination.get(destination)?.subsets.values() ?? [])];
  }

  /** The destinations some subset is demanded of, in the order of their first demand. */
  destinations(): string[] {
    return [...this.byDestination.keys()];
  }

  /** What a destination's rendering reads of the demands, as text ("" when none), to tell whether it changed. */
  key(destination: string): string {
    const entry = this.byDestination.get(destination);
    return entry === undefined ? "" : JSON.stringify([[...entry.subsets.values()], [...entry.parents]]);
  }

  parents(destination: string): Set<string> {
    return this.byDestination.get(destination)?.parents ?? new Set();
  }
}

/**
 * A destination's subsets (docs/resources.md#trafficpolicy): one per discovered label value
 * (`version: [v1, v2]` → `version-v1`, `version-v2`) plus every label set a trafficShift routes to,
 * by name. Sorted by name.
 */
export function subsetsOf(destination: Destination, demands: SubsetDemands): Subset[] {
  const out = new Map<string, Subset>();
  for (const [key, values] of Object.entries(destination.spec.subsets)) {
    for (const value of values) {
      const labels = { [key]: value };
      out.set(subsetName(labels), { name: subsetName(labels), labels });
    }
  }
  for (const subset of demands.subsets(destination.metadata.name)) if (!out.has(subset.name)) out.set(subset.name, subset);
  return [...out.values()].sort((a, b) => compareStrings(a.name, b.name));
}
