import { describe, expect, it } from "vitest";
import { TranslateError } from "./errors";
import { GENERATED_KINDS, apiVersionOf } from "./generated-kinds";
import { ANNOTATION_PARENTS, type ObjectDraft, OutputSink } from "./output";

function draft(kind: ObjectDraft["kind"], name: string, spec: Record<string, unknown>, parent: string): ObjectDraft {
  return { apiVersion: apiVersionOf(kind), kind, name, namespace: "ns", spec, parents: [{ kind: "TrafficPolicy", name: parent }] };
}

describe("OutputSink", () => {
  it("sorts by kind order, namespace, name and stamps labels and parents", () => {
    const sink = new OutputSink("acme", ["c1", "c2"]);
    sink.add("c1", draft("VirtualService", "a", {}, "p"));
    sink.add("c1", draft("DestinationRule", "z", {}, "p"));
    sink.add("c1", draft("ServiceEntry", "m", {}, "p"));
    sink.add("c1", { ...draft("ServiceEntry", "a-b", {}, "p"), namespace: "ns-a" });
    sink.add("c1", draft("ServiceEntry", "a", {}, "p"));
    sink.add("c1", draft("ServiceEntry", "a-1", {}, "p"));
    const out = sink.finish();
    expect(out.c1?.objects.map((o) => `${o.kind}/${o.metadata.namespace}/${o.metadata.name}`)).toEqual([
      "ServiceEntry/ns/a",
      "ServiceEntry/ns/a-1",
      "ServiceEntry/ns/m",
      "ServiceEntry/ns-a/a-b",
      "DestinationRule/ns/z",
      "VirtualService/ns/a",
    ]);
    expect(out.c1?.objects[0]?.metadata.labels).toEqual({ "app.kubernetes.io/managed-by": "meshplane", "meshplane.dev/cluster": "c1", "meshplane.dev/tenant": "acme" });
    expect(out.c2?.objects).toEqual([]);
    expect(out.c2?.hash).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it("orders every generated kind as GENERATED_KINDS lists them", () => {
    const sink = new OutputSink("acme", ["c"]);
    for (const { kind } of GENERATED_KINDS.toReversed()) sink.add("c", draft(kind, "x", {}, "p"));
    expect(sink.finish().c?.objects.map((o) => o.kind)).toEqual(GENERATED_KINDS.map((row) => row.kind));
  });

  it.each([
    ["a version the table does not list", apiVersionOf("VirtualService").replace(/\/.*/, "/v1alpha3")],
    ["another kind's group", apiVersionOf("TrafficSplit")],
  ])("throws for an object generated in %s, which the agent would never prune", (_what, apiVersion) => {
    const sink = new OutputSink("acme", ["c"]);
    expect(() => sink.add("c", { ...draft("VirtualService", "x", {}, "p"), apiVersion })).toThrow(/GENERATED_KINDS does not list/);
  });

  it("keeps one copy of an identical object generated twice and merges the parents, sorted", () => {
    const sink = new OutputSink("acme", ["c"]);
    sink.add("c", draft("PeerAuthentication", "default", { mtls: { mode: "STRICT" } }, "vm-b"));
    sink.add("c", draft("PeerAuthentication", "default", { mtls: { mode: "STRICT" } }, "vm-a"));
    const objects = sink.finish().c?.objects ?? [];
    expect(objects).toHaveLength(1);
    expect(objects[0]?.metadata.annotations[ANNOTATION_PARENTS]).toBe('[{"kind":"TrafficPolicy","name":"vm-a"},{"kind":"TrafficPolicy","name":"vm-b"}]');
  });

  it("throws when two different objects share a name (a translator bug)", () => {
    const sink = new OutputSink("acme", ["c"]);
    sink.add("c", draft("VirtualService", "x", { hosts: ["a"] }, "p"));
    sink.add("c", draft("VirtualService", "x", { hosts: ["b"] }, "q"));
    expect(() => sink.finish()).toThrow(TranslateError);
  });

  it("throws for an unregistered cluster", () => {
    expect(() => new OutputSink("acme", ["c"]).add("nope", draft("VirtualService", "x", {}, "p"))).toThrow(TranslateError);
  });
});
