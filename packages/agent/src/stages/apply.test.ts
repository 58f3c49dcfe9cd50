import { GENERATED_KINDS, type KubeObject, apiVersionsOf } from "@meshplane/core";
import { describe, expect, it } from "vitest";
import { KubeError } from "../kube/failure";
import { ownerLabels } from "../ownership";
import { FakeKube, SCOPE } from "../testing/fakes";
import { applyObjects } from "./apply";
import { pruneUndesired } from "./prune";

/** One owned object of every generated kind, in reverse apply order. */
const everyKind = (): KubeObject[] =>
  GENERATED_KINDS.toReversed().map((row) => ({
    apiVersion: apiVersionsOf(row)[0] as string,
    kind: row.kind,
    metadata: { name: "x", namespace: "ns", labels: ownerLabels(SCOPE), annotations: {} },
    spec: {},
  }));

/** `n` owned objects of one kind. */
const many = (kind: string, n: number): KubeObject[] =>
  Array.from({ length: n }, (_, i) => ({
    apiVersion: apiVersionsOf(GENERATED_KINDS.find((r) => r.kind === kind) as never)[0] as string,
    kind,
    metadata: { name: `${kind.toLowerCase()}-${i}`, namespace: "ns", labels: ownerLabels(SCOPE), annotations: {} },
    spec: {},
  }));

describe("apply and prune over GENERATED_KINDS", () => {
  it("applies in the table's order", async () => {
    const kube = new FakeKube();
    await applyObjects(kube, SCOPE, everyKind(), new Map());
    expect(kube.writes().map((c) => c.kind)).toEqual(GENERATED_KINDS.map((row) => row.kind));
    expect(kube.objects.size).toBe(GENERATED_KINDS.length);
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

  it("types each object's failure and reports the apiserver's own words, or the agent's refusal of an object it does not own", async () => {
    const kube = new FakeKube();
    const [denied, missing, busy] = many("VirtualService", 3);
    const foreign = {
      ...many("DestinationRule", 1)[0],
      metadata: { name: "foreign", namespace: "ns", labels: { ...ownerLabels(SCOPE), "meshplane.dev/tenant": "other" }, annotations: {} },
    } as KubeObject;
    const errors: Record<string, KubeError> = {
      [denied?.metadata.name as string]: new KubeError(400, 'admission webhook "validate.istio.io" denied the request: bad host'),
      [missing?.metadata.name as string]: new KubeError(404, "the server could not find the requested resource"),
      [busy?.metadata.name as string]: new KubeError(503, "etcdserver: leader changed"),
    };
    kube.fail = (c) => (c.verb === "apply" ? errors[c.name ?? ""] : undefined);
    const outcome = await applyObjects(kube, SCOPE, [denied, missing, busy, foreign] as KubeObject[], new Map());
    expect([...outcome.failed.values()].map((e) => e.type).sort()).toEqual(["not-found", "not-owned", "refused-by-admission", "transient"]);
    expect(outcome.results.map((r) => `${r.name}: ${r.error}`)).toEqual([
      "foreign: refused: the object's owner labels do not name this tenant and cluster",
      'virtualservice-0: admission webhook "validate.istio.io" denied the request: bad host',
      "virtualservice-1: the server could not find the requested resource",
      "virtualservice-2: etcdserver: leader changed",
    ]);
    expect(outcome.versions.size).toBe(0);
  });
});
