import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Canonicalizer, canonicalJson, digest, endsChunk } from "./canonical";
import { TranslateError } from "../errors";
import { GENERATED_KINDS, apiVersionOf, apiVersionsOf } from "./generated-kinds";
import { ANNOTATION_PARENTS, LABEL_CLUSTER, LABEL_MANAGED_BY, LABEL_TENANT, type ObjectDraft, OutputSink, keepUnchanged, objectsJson } from "./sink";
import type { ClusterOutput } from "../types";

function draft(kind: ObjectDraft["kind"], name: string, spec: Record<string, unknown>, parent: string, apiVersion = apiVersionOf(kind)): ObjectDraft {
  return { apiVersion, kind, name, namespace: "ns", spec, parents: [{ kind: "TrafficPolicy", name: parent }] };
}

/** A sink holding `pairs` as one unit's contribution. */
function sinkWith(clusters: string[], pairs: [string, ObjectDraft][]): OutputSink {
  const sink = new OutputSink("acme", clusters);
  sink.contribute("unit", { objects: pairs.map(([cluster, d]) => ({ cluster, draft: d })), certificates: [] });
  return sink;
}

describe("OutputSink", () => {
  it("sorts by kind order, namespace, name and stamps labels and parents", () => {
    const sink = sinkWith(
      ["c1", "c2"],
      [
        ["c1", draft("VirtualService", "a", {}, "p")],
        ["c1", draft("DestinationRule", "z", {}, "p")],
        ["c1", draft("ServiceEntry", "m", {}, "p")],
        ["c1", { ...draft("ServiceEntry", "a-b", {}, "p"), namespace: "ns-a" }],
        ["c1", draft("ServiceEntry", "a", {}, "p")],
        ["c1", draft("ServiceEntry", "a-1", {}, "p")],
      ],
    );
    const out = sink.finish();
    expect(out.c1?.objects.map((o) => `${o.kind}/${o.metadata.namespace}/${o.metadata.name}`)).toEqual([
      "ServiceEntry/ns/a",
      "ServiceEntry/ns/a-1",
      "ServiceEntry/ns/m",
      "ServiceEntry/ns-a/a-b",
      "DestinationRule/ns/z",
      "VirtualService/ns/a",
    ]);
    expect(out.c1?.objects[0]?.metadata.labels).toEqual({
      "app.kubernetes.io/managed-by": "meshplane",
      "meshplane.dev/cluster": "c1",
      "meshplane.dev/tenant": "acme",
    });
    expect(out.c2?.objects).toEqual([]);
    expect(out.c2?.hash).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it("orders every generated kind as GENERATED_KINDS lists them", () => {
    const sink = sinkWith(
      ["c"],
      GENERATED_KINDS.toReversed().map((row) => ["c", draft(row.kind, "x", {}, "p", apiVersionsOf(row)[0])]),
    );
    expect(sink.finish().c?.objects.map((o) => o.apiVersion)).toEqual(GENERATED_KINDS.map((row) => apiVersionsOf(row)[0]));
  });

  it.each([
    ["a version the table does not list", apiVersionOf("VirtualService").replace(/\/.*/, "/v1alpha3")],
    ["another kind's group", apiVersionOf("TrafficSplit")],
    ["Gateway API's group for an Istio kind", apiVersionOf("HTTPRoute")],
  ])("throws for an object generated in %s, which the agent would never prune", (_what, apiVersion) => {
    expect(() => sinkWith(["c"], [["c", { ...draft("VirtualService", "x", {}, "p"), apiVersion }]])).toThrow(/GENERATED_KINDS does not list/);
  });

  it("keeps one copy of an identical object generated twice and merges the parents, sorted", () => {
    const sink = sinkWith(
      ["c"],
      [
        ["c", draft("PeerAuthentication", "default", { mtls: { mode: "STRICT" } }, "vm-b")],
        ["c", draft("PeerAuthentication", "default", { mtls: { mode: "STRICT" } }, "vm-a")],
      ],
    );
    const objects = sink.finish().c?.objects ?? [];
    expect(objects).toHaveLength(1);
    expect(objects[0]?.metadata.annotations[ANNOTATION_PARENTS]).toBe('[{"kind":"TrafficPolicy","name":"vm-a"},{"kind":"TrafficPolicy","name":"vm-b"}]');
  });

  it("throws when two different objects share a name (a translator bug)", () => {
    const sink = sinkWith(
      ["c"],
      [
        ["c", draft("VirtualService", "x", { hosts: ["a"] }, "p")],
        ["c", draft("VirtualService", "x", { hosts: ["b"] }, "q")],
      ],
    );
    expect(() => sink.finish()).toThrow(TranslateError);
  });

  it("throws for an unregistered cluster", () => {
    expect(() => sinkWith(["c"], [["nope", draft("VirtualService", "x", {}, "p")]])).toThrow(TranslateError);
  });
});

/** A Gateway draft with labels of its own. */
const labelled = (labels: Record<string, string>, name = "x"): ObjectDraft => ({
  ...draft("Gateway", name, { v: 1 }, "p", apiVersionOf("Gateway", undefined, "gateway.networking.k8s.io")),
  labels,
});

/** A Gateway with an annotation of its own. */
const annotated = (services: string): ObjectDraft => ({ ...labelled({}), annotations: { "meshplane.dev/global-services": services } });

/** The content hash of one cluster holding a Gateway with `labels`. */
const hash = (labels: Record<string, string>) => sinkWith(["c"], [["c", labelled(labels)]]).finish().c?.hash;

describe("OutputSink: a draft's own labels", () => {
  it("stamps them beside the owner labels in every cluster, in the content hash as Canonicalizer computes it", () => {
    const shared = labelled({ "topology.istio.io/network": "west", "a.example/first": "1" });
    const sink = sinkWith(
      ["c1", "c2"],
      [
        ["c1", shared],
        ["c2", shared],
        ["c1", draft("VirtualService", "plain", {}, "p")],
      ],
    );
    const out = sink.finish();
    for (const cluster of ["c1", "c2"]) {
      const output = out[cluster] as ClusterOutput;
      const gateway = output.objects.find((o) => o.kind === "Gateway");
      expect(Object.keys(gateway?.metadata.labels ?? {})).toEqual([
        "a.example/first",
        LABEL_MANAGED_BY,
        LABEL_CLUSTER,
        LABEL_TENANT,
        "topology.istio.io/network",
      ]);
      expect(gateway?.metadata.labels).toMatchObject({ [LABEL_CLUSTER]: cluster, "topology.istio.io/network": "west" });
      expect(output.hash).toBe(new Canonicalizer().contentHash(output.objects, []));
      expect(objectsJson(output).toString()).toBe(JSON.stringify(output.objects));
    }
    expect(out.c1?.objects.find((o) => o.kind === "VirtualService")?.metadata.labels).toEqual({
      [LABEL_MANAGED_BY]: "meshplane",
      [LABEL_CLUSTER]: "c1",
      [LABEL_TENANT]: "acme",
    });
  });

  it("changes the content hash when only an object's own labels change", () => {
    expect(hash({ "topology.istio.io/network": "west" })).not.toBe(hash({ "topology.istio.io/network": "east" }));
    expect(hash({ "topology.istio.io/network": "west" })).toBe(hash({ "topology.istio.io/network": "west" }));
  });

  it.each([LABEL_MANAGED_BY, LABEL_TENANT, LABEL_CLUSTER])("refuses a draft whose own labels name the owner label %s", (key) => {
    expect(() => sinkWith(["c"], [["c", labelled({ [key]: "someone-else" })]])).toThrow(/only the sink sets/);
  });

  it("throws when two objects of one name differ only in their own labels (a translator bug)", () => {
    const sink = sinkWith(
      ["c"],
      [
        ["c", labelled({ "topology.istio.io/network": "west" })],
        ["c", labelled({ "topology.istio.io/network": "east" })],
      ],
    );
    expect(() => sink.finish()).toThrow(/two different Gateway objects/);
  });

  it("throws when two objects of one name differ only in their own annotations (a translator bug)", () => {
    const sink = sinkWith(
      ["c"],
      [
        ["c", annotated('["bookinfo/reviews"]')],
        ["c", annotated("[]")],
      ],
    );
    expect(() => sink.finish()).toThrow(/two different Gateway objects/);
  });

  it("keepUnchanged keeps the earlier draft only when its labels are the same", () => {
    const before = labelled({ "topology.istio.io/network": "west" });
    const previous = { objects: [{ cluster: "c", draft: before }], certificates: [] };
    expect(keepUnchanged(previous, [{ cluster: "c", draft: labelled({ "topology.istio.io/network": "west" }) }])[0]?.draft).toBe(before);
    const moved = labelled({ "topology.istio.io/network": "east" });
    expect(keepUnchanged(previous, [{ cluster: "c", draft: moved }])[0]?.draft).toBe(moved);
  });
});

const units = 8;
/** Unit `u`'s drafts for generation `g`: a few hundred objects per unit, some shared by name with other units. */
function unitDrafts(u: number, g: number, size: number): ObjectDraft[] {
  return Array.from({ length: size }, (_, i) => {
    // Every fifth object has the same name and spec in two units: kept once, parents merged.
    const shared = i % 5 === 0;
    const name = shared ? `shared-${i}` : `u${u}-${i}`;
    // A new generation changes about one object in seventeen, so most changes patch chunks in place.
    return draft(i % 3 === 0 ? "DestinationRule" : "VirtualService", name, { v: shared || i % 17 !== g % 17 ? 0 : g }, `p${u}`);
  });
}

function contribution(drafts: ObjectDraft[], clusters: string[]) {
  return {
    objects: drafts.flatMap((d, i) => clusters.filter((_, k) => (i + k) % 2 === 0 || k === 0).map((cluster) => ({ cluster, draft: d }))),
    certificates: [],
  };
}

const endsAChunk = (d: ObjectDraft) =>
  endsChunk(
    digest(
      canonicalJson({
        apiVersion: d.apiVersion,
        kind: d.kind,
        metadata: { annotations: { [ANNOTATION_PARENTS]: JSON.stringify(d.parents) }, name: d.name, namespace: d.namespace },
        spec: d.spec,
      }),
    ),
  );

describe("OutputSink across translations", () => {
  it("patches only what changed and gives what a new sink gives for the same contributions, through chunk splits and merges", () => {
    const clusters = ["c1", "c2"];
    fc.assert(
      fc.property(
        fc.array(fc.record({ unit: fc.nat({ max: units - 1 }), generation: fc.nat({ max: 40 }), size: fc.integer({ min: 250, max: 330 }) }), {
          minLength: 1,
          maxLength: 5,
        }),
        (changes) => {
          const warm = new OutputSink("acme", clusters);
          const current = new Map<number, ReturnType<typeof contribution>>();
          for (let u = 0; u < units; u++) current.set(u, contribution(unitDrafts(u, 0, 300), clusters));
          const all = () => {
            for (const [u, c] of current) warm.contribute(`u${u}`, c);
            return warm.finish();
          };
          all();
          for (const change of changes) {
            current.set(change.unit, contribution(unitDrafts(change.unit, change.generation, change.size), clusters));
            const got = all();
            const cold = new OutputSink("acme", clusters);
            for (const [u, c] of current) cold.contribute(`u${u}`, c);
            const expected = cold.finish();
            for (const cluster of clusters) {
              expect(got[cluster]?.hash).toBe(expected[cluster]?.hash);
              expect(objectsJson(got[cluster] as ClusterOutput).toString()).toBe(objectsJson(expected[cluster] as ClusterOutput).toString());
              expect(got[cluster]?.hash).toBe(new Canonicalizer().contentHash(expected[cluster]?.objects ?? [], []));
            }
          }
        },
      ),
      { numRuns: 25 },
    );
  }, 120_000);

  it("merges a chunk with the next when its last object goes, and splits one when an object in it comes to end a chunk", () => {
    const drafts = new Map(
      Array.from({ length: 3000 }, (_, i) => [`o-${String(i).padStart(4, "0")}`, draft("VirtualService", `o-${String(i).padStart(4, "0")}`, { v: 0 }, "p")]),
    );
    const warm = new OutputSink("acme", ["c"]);
    const given = new Set<string>();
    const check = () => {
      for (const name of given) if (!drafts.has(name)) warm.retire(name);
      for (const [name, d] of drafts) warm.contribute(name, { objects: [{ cluster: "c", draft: d }], certificates: [] });
      for (const name of drafts.keys()) given.add(name);
      const got = warm.finish().c as ClusterOutput;
      const cold = new OutputSink("acme", ["c"]);
      for (const [name, d] of drafts) cold.contribute(name, { objects: [{ cluster: "c", draft: d }], certificates: [] });
      expect(got.hash).toBe(cold.finish().c?.hash);
      expect(got.hash).toBe(new Canonicalizer().contentHash(got.objects, []));
    };
    check();
    const ends = [...drafts].filter(([, d]) => endsAChunk(d)).map(([name]) => name);
    expect(ends.length).toBeGreaterThan(3);
    // The object that ends the first chunk goes: its chunk and the next become one.
    drafts.delete(ends[0] as string);
    check();
    // The object that ends the second chunk changes so that it no longer ends one.
    const second = drafts.get(ends[1] as string) as ObjectDraft;
    let v = 1;
    while (endsAChunk({ ...second, spec: { v } })) v++;
    drafts.set(ends[1] as string, { ...second, spec: { v } });
    check();
    // An object in the middle of a chunk changes so that it ends one: the chunk splits in two.
    const middle = [...drafts.keys()].find((name) => name > (ends[2] as string)) as string;
    const inner = drafts.get(middle) as ObjectDraft;
    let w = 1;
    while (!endsAChunk({ ...inner, spec: { v: w } })) w++;
    drafts.set(middle, { ...inner, spec: { v: w } });
    check();
  });

  it("keeps the output object of a cluster nothing changed in, and drops a retired unit", () => {
    const sink = new OutputSink("acme", ["c1", "c2"]);
    const one = { objects: [{ cluster: "c1", draft: draft("VirtualService", "a", {}, "p") }], certificates: [] };
    const two = { objects: [{ cluster: "c2", draft: draft("VirtualService", "b", {}, "q") }], certificates: [] };
    sink.contribute("one", one);
    sink.contribute("two", two);
    const first = sink.finish();
    sink.contribute("one", one);
    sink.retire("two");
    const second = sink.finish();
    expect(second.c1).toBe(first.c1);
    expect(second.c2?.objects).toEqual([]);
  });
});
