import { GENERATED_KINDS, type KubeObject, apiVersionsOf } from "@meshplane/core";
import { describe, expect, it } from "vitest";
import { applyObjects, ownerLabels, pruneUndesired } from "./apply";
import { FakeKube, SCOPE } from "../testing/fakes";

/** One owned object of every generated kind, in reverse apply order. */
const everyKind = (): KubeObject[] =>
  GENERATED_KINDS.toReversed().map((row) => ({ apiVersion: apiVersionsOf(row)[0] as string, kind: row.kind, metadata: { name: "x", namespace: "ns", labels: ownerLabels(SCOPE), annotations: {} }, spec: {} }));

/** `n` owned objects of one kind. */
const many = (kind: string, n: number): KubeObject[] =>
  Array.from({ length: n }, (_, i) => ({ apiVersion: apiVersionsOf(GENERATED_KINDS.find((r) => r.kind === kind) as never)[0] as string, kind, metadata: { name: `${kind.toLowerCase()}-${i}`, namespace: "ns", labels: ownerLabels(SCOPE), annotations: {} }, spec: {} }));

describe("apply and prune over GENERATED_KINDS", () => {
  it("applies in the table's order", async () => {
    const kube = new FakeKube();
    await applyObjects(kube, SCOPE, everyKind(), new Map());
    expect(kube.writes().map((c) => c.kind)).toEqual(GENERATED_KINDS.map((row) => row.kind));
  });

  it("applies a kind's objects up to the concurrency limit at once, and a kind only after the one before it is done", async () => {
    const kube = new FakeKube();
    const apply = kube.apply.bind(kube);
    let inFlight = 0;
    let most = 0;
    const kindsInFlight = new Set<string>();
    let mixed = false;
    kube.apply = async (obj) => {
      inFlight++;
      most = Math.max(most, inFlight);
      kindsInFlight.add(obj.kind as string);
      if (kindsInFlight.size > 1) mixed = true;
      await new Promise((resolve) => setTimeout(resolve, 2));
      inFlight--;
      if (inFlight === 0) kindsInFlight.clear();
      return apply(obj);
    };
    const desired = [...many("VirtualService", 40), ...many("ServiceEntry", 40), ...many("DestinationRule", 40)];
    const outcome = await applyObjects(kube, SCOPE, desired, new Map(), new Set(), 8);
    expect(most).toBe(8);
    expect(mixed).toBe(false);
    expect(outcome.results.every((r) => r.state === "applied")).toBe(true);
    // Results in kind order, then the snapshot's order, whatever order the applies finished in.
    const order = GENERATED_KINDS.map((r) => r.kind).filter((k) => ["VirtualService", "ServiceEntry", "DestinationRule"].includes(k));
    expect(outcome.results.map((r) => r.name)).toEqual(order.flatMap((k) => many(k, 40).map((o) => o.metadata.name)));
    expect(outcome.versions.size).toBe(120);
  });

  it("prunes in reverse order, listing each kind in every version it may be written in and deleting each object once", async () => {
    const kube = new FakeKube();
    for (const obj of everyKind()) kube.put(obj as never);
    const listed: string[] = [];
    const list = kube.list.bind(kube);
    kube.list = async (apiVersion, kind, selector, namespace) => {
      listed.push(`${apiVersion} ${kind}`);
      return list(apiVersion, kind, selector, namespace);
    };
    const results = await pruneUndesired(kube, SCOPE, new Set());
    expect(listed).toEqual(GENERATED_KINDS.toReversed().flatMap((row) => apiVersionsOf(row).map((v) => `${v} ${row.kind}`)));
    expect(results.map((r) => `${r.state} ${r.kind}`)).toEqual(GENERATED_KINDS.toReversed().map((row) => `pruned ${row.kind}`));
    expect(kube.objects.size).toBe(0);
  });
});
