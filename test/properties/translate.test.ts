import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type KubeObject, type TranslateInput, type TranslateOutput, translate } from "../../packages/core/src/translate/index";
import { ANNOTATION_PARENTS } from "../../packages/core/src/translate/output/sink";
import { buildInput } from "../golden/tenant";
import { tenant } from "./arbitraries";

const RUNS = Number(process.env.PROPERTY_RUNS ?? 200);
// Each run translates a few small tenants; a thousand runs take seconds, not the 5 s default.
const TIMEOUT_MS = 60_000 + RUNS * 50;
const input = tenant.map(buildInput);

/** Fisher–Yates driven by a fast-check seed, so a failing order shrinks and replays. */
function shuffle<T>(list: readonly T[], seed: number): T[] {
  const out = [...list];
  let state = seed >>> 0 || 1;
  for (let i = out.length - 1; i > 0; i--) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

function shuffled(i: TranslateInput, seed: number): TranslateInput {
  return {
    ...i,
    clusters: shuffle(i.clusters, seed),
    meshes: shuffle(i.meshes, seed + 1),
    workloads: shuffle(i.workloads, seed + 2),
    destinations: shuffle(i.destinations, seed + 3),
    virtualMeshes: shuffle(i.virtualMeshes, seed + 4),
    trafficPolicies: shuffle(i.trafficPolicies, seed + 5),
    accessPolicies: shuffle(i.accessPolicies, seed + 6),
  };
}

/** The input as the worker would see it next time: every resource carrying the status just computed. */
function withStatuses(i: TranslateInput, out: TranslateOutput): TranslateInput {
  const carry = <R extends TranslateInput["trafficPolicies"][number] | TranslateInput["accessPolicies"][number] | TranslateInput["virtualMeshes"][number]>(
    r: R,
  ): R => ({
    ...r,
    status: out.statuses[`${r.kind}/${r.metadata.name}`] ?? r.status,
  });
  return { ...i, virtualMeshes: i.virtualMeshes.map(carry), trafficPolicies: i.trafficPolicies.map(carry), accessPolicies: i.accessPolicies.map(carry) };
}

function objectKey(cluster: string, o: KubeObject): string {
  return `${cluster} ${o.kind} ${o.metadata.namespace}/${o.metadata.name}`;
}

function objectsByKey(out: TranslateOutput): Map<string, KubeObject> {
  return new Map(Object.entries(out.clusters).flatMap(([cluster, c]) => c.objects.map((o) => [objectKey(cluster, o), o] as const)));
}

function parentsOf(o: KubeObject): string[] {
  return (JSON.parse(o.metadata.annotations[ANNOTATION_PARENTS] ?? "[]") as { kind: string; name: string }[]).map((p) => `${p.kind}/${p.name}`);
}

function acceptanceOrders(out: TranslateOutput): Record<string, number | undefined> {
  const orders: Record<string, number | undefined> = {};
  for (const [key, status] of Object.entries(out.statuses)) {
    for (const [destination, d] of Object.entries(status.destinations ?? {})) orders[`${key} ${destination}`] = d.acceptanceOrder;
  }
  return orders;
}

describe("translate, over random valid tenants", () => {
  it(
    "never throws, and gives every registered cluster an output",
    () => {
      fc.assert(
        fc.property(input, (i) => {
          const out = translate(i);
          expect(Object.keys(out.clusters).sort()).toEqual([...new Set(i.clusters)].sort());
        }),
        { numRuns: RUNS },
      );
    },
    TIMEOUT_MS,
  );

  it(
    "is deterministic: the same bytes twice, whatever the order of the input lists",
    () => {
      fc.assert(
        fc.property(input, fc.integer(), (i, seed) => {
          const once = JSON.stringify(translate(i));
          expect(JSON.stringify(translate(i))).toBe(once);
          expect(JSON.stringify(translate(shuffled(i, seed)))).toBe(once);
        }),
        { numRuns: RUNS },
      );
    },
    TIMEOUT_MS,
  );

  it(
    "keeps acceptance order when re-translated with the statuses it produced (and then changes nothing)",
    () => {
      fc.assert(
        fc.property(input, (i) => {
          const first = translate(i);
          const second = translate(withStatuses(i, first));
          const before = acceptanceOrders(first);
          const after = acceptanceOrders(second);
          for (const [key, order] of Object.entries(before)) if (order !== undefined) expect(after[key], key).toBe(order);
          expect(JSON.stringify(second)).toBe(JSON.stringify(first));
        }),
        { numRuns: RUNS },
      );
    },
    TIMEOUT_MS,
  );

  it(
    "removing a policy removes exactly the objects it was the only parent of; objects with other parents remain",
    () => {
      fc.assert(
        fc.property(input, fc.nat(), (i, pick) => {
          const policies = [...i.trafficPolicies, ...i.accessPolicies];
          fc.pre(policies.length > 0);
          const removed = policies[pick % policies.length] as (typeof policies)[number];
          const removedKey = `${removed.kind}/${removed.metadata.name}`;
          // The realistic flow: the next translation reads the statuses of the previous one.
          const settled = withStatuses(i, translate(i));
          const first = translate(settled);
          const before = objectsByKey(first);
          const without: TranslateInput = {
            ...settled,
            trafficPolicies: settled.trafficPolicies.filter((p) => p.metadata.name !== removed.metadata.name || removed.kind !== "TrafficPolicy"),
            accessPolicies: settled.accessPolicies.filter((p) => p.metadata.name !== removed.metadata.name || removed.kind !== "AccessPolicy"),
          };
          const after = objectsByKey(translate(without));
          // A policy the removed one blocked (by a conflict) may now be accepted and produce the same
          // object; that is the only way an object whose sole parent was removed can survive.
          const blocked = new Set(Object.entries(first.statuses).flatMap(([key, status]) => (status.state === "INVALID" ? [key] : [])));
          for (const [key, object] of before) {
            const parents = parentsOf(object);
            const survivor = after.get(key);
            if (parents.length === 1 && parents[0] === removedKey) {
              if (survivor !== undefined)
                expect(
                  parentsOf(survivor).every((p) => blocked.has(p)),
                  `${key} survives through ${parentsOf(survivor).join(",")}`,
                ).toBe(true);
            } else {
              expect(survivor, `${key} parents=${parents.join(",")}`).toBeDefined();
            }
          }
          for (const object of after.values()) expect(parentsOf(object)).not.toContain(removedKey);
        }),
        { numRuns: RUNS },
      );
    },
    TIMEOUT_MS,
  );
});
