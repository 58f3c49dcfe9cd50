import { GENERATED_KINDS, type KubeObject, apiVersionsOf } from "@meshplane/core";
import { describe, expect, it } from "vitest";
import { applyObjects, ownerLabels, pruneUndesired } from "./apply";
import { FakeKube, SCOPE } from "./test-fakes";

/** One owned object of every generated kind, in reverse apply order. */
const everyKind = (): KubeObject[] =>
  GENERATED_KINDS.toReversed().map((row) => ({ apiVersion: apiVersionsOf(row)[0] as string, kind: row.kind, metadata: { name: "x", namespace: "ns", labels: ownerLabels(SCOPE), annotations: {} }, spec: {} }));

describe("apply and prune over GENERATED_KINDS", () => {
  it("applies in the table's order", async () => {
    const kube = new FakeKube();
    await applyObjects(kube, SCOPE, everyKind(), new Map());
    expect(kube.writes().map((c) => c.kind)).toEqual(GENERATED_KINDS.map((row) => row.kind));
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
