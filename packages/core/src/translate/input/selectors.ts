import type { Destination, DestinationSelector, Workload, WorkloadSelector } from "../../api/index";
import { type Model, refKey } from "./model";

export interface DestinationSelection {
  /** Selected destinations, sorted by name. */
  matched: Destination[];
  /** `cluster/namespace/name` of every kubeServiceRefs entry that names no discovered service. */
  missing: string[];
}

/**
 * Resolves destination selectors (docs/resources.md#selectors): a list is an OR, an empty or
 * omitted list selects every destination, omitted matcher fields match anything. Explicit refs to
 * services that were not discovered come back in `missing` so the caller can name them in an error.
 */
export function selectDestinations(model: Model, selectors: readonly DestinationSelector[] | undefined): DestinationSelection {
  if (selectors === undefined || selectors.length === 0) return { matched: [...model.destinations.values()], missing: [] };
  const positions = new Set<number>();
  const found = new Set<Destination>();
  const missing: string[] = [];
  for (const selector of selectors) {
    if (selector.kubeServiceMatcher !== undefined) {
      for (const i of model.destinationIndex.positions(selector.kubeServiceMatcher)) positions.add(i);
    }
    for (const ref of selector.kubeServiceRefs?.services ?? []) {
      const destination = model.destinationByRef(ref);
      if (destination === undefined) missing.push(refKey(ref));
      else found.add(destination);
    }
  }
  const items = model.destinationIndex.items;
  for (const i of positions) found.add(items[i] as Destination);
  const matched = [...found].sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
  return { matched, missing: [...new Set(missing)] };
}

/** Workloads any of `selectors` matches (OR); an empty or omitted list matches every workload. Sorted by name. */
export function selectWorkloads(model: Model, selectors: readonly WorkloadSelector[] | undefined): Workload[] {
  const index = model.workloadIndex;
  if (selectors === undefined || selectors.length === 0) return [...index.items];
  const positions = new Set<number>();
  for (const selector of selectors) {
    for (const i of index.positions(selector.kubeWorkloadMatcher)) positions.add(i);
  }
  return [...positions].sort((a, b) => a - b).map((i) => index.items[i] as Workload);
}
