import type { AccessPolicy } from "../istio/authorization-policy";
import type { TrafficPolicy } from "../istio/destination-state";
import { canonicalJson } from "../output/canonical";

type Policy = TrafficPolicy | AccessPolicy;

/**
 * Short ids of policy contents (kind, metadata and spec), so the keys of units stay small: equal
 * ids, equal content. An id lives while some input has its content; `turn` forgets the contents the
 * last input did not have.
 */
export class ContentIds {
  private readonly fingerprints = new WeakMap<object, { content: string; id: string }>();
  private ids = new Map<string, string>();
  private nextIds = new Map<string, string>();
  private counter = 0;

  /** The id of `policy`'s content. */
  of(policy: Policy): string {
    let fp = this.fingerprints.get(policy);
    if (fp === undefined) {
      const content = canonicalJson({ kind: policy.kind, metadata: policy.metadata, spec: policy.spec });
      fp = { content, id: this.ids.get(content) ?? this.nextIds.get(content) ?? (++this.counter).toString(36) };
      this.fingerprints.set(policy, fp);
    }
    this.nextIds.set(fp.content, fp.id);
    return fp.id;
  }

  /** Ends one input: ids of contents it did not have are forgotten. */
  turn(): void {
    this.ids = this.nextIds;
    this.nextIds = new Map();
  }
}

/** A policy as the last call had it: the object, its content id and what it selects. */
export interface Selected<P, S> {
  policy: P;
  fp: string;
  selection: S;
}

/**
 * The policies of one kind as this call has them, with their selections (made again only when a
 * policy's content changed, or for all when `reselect`, after a discovery change), the destinations
 * whose units may have changed — those any added, removed or changed policy selects or selected — and
 * the policies whose selection changed. A policy object that is not the one of the last call counts
 * as changed even with the same content, since its acceptance numbers may differ.
 */
export function selectionsOf<P extends Policy, S extends { destinations: string[] }>(
  policies: readonly P[],
  last: ReadonlyMap<string, Selected<P, S>>,
  select: (p: P) => S,
  reselect: boolean,
  ids: ContentIds,
): { current: Map<string, Selected<P, S>>; dirty: Set<string>; reselected: Set<string> } {
  const current = new Map<string, Selected<P, S>>();
  const dirty = new Set<string>();
  const reselected = new Set<string>();
  for (const policy of policies) {
    const name = policy.metadata.name;
    const fp = ids.of(policy);
    const before = last.get(name);
    const selection = before?.fp === fp && !reselect ? before.selection : select(policy);
    current.set(name, { policy, fp, selection });
    const moved = reselect && before?.fp === fp && canonicalJson(selection) !== canonicalJson(before.selection);
    if (moved) reselected.add(name);
    if (before?.policy === policy && !moved) continue;
    for (const d of selection.destinations) dirty.add(d);
    for (const d of before?.selection.destinations ?? []) dirty.add(d);
  }
  for (const [name, before] of last) if (!current.has(name)) for (const d of before.selection.destinations) dirty.add(d);
  return { current, dirty, reselected };
}
