import { describe, expect, it } from "vitest";
import { UsageError } from "../config";
import { parseDocuments } from "../documents";
import { checkKinds, storedForm, validated } from "./desired";

const tp = (name: string, extra = "") =>
  `apiVersion: meshplane.dev/v1\nkind: TrafficPolicy\nmetadata:\n  name: ${name}${extra}\nspec:\n  policy: {requestTimeout: 2s}\n`;

const thrown = (f: () => unknown): string => {
  try {
    f();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error("nothing thrown");
};

describe("validated", () => {
  it("returns each document with its Kind/name and where it came from", () => {
    const docs = validated(parseDocuments(`${tp("a")}---\n${tp("b")}`, "p/x.yaml"));
    expect(docs.map((d) => [d.source, d.key])).toEqual([
      ["p/x.yaml#1", "TrafficPolicy/a"],
      ["p/x.yaml#2", "TrafficPolicy/b"],
    ]);
  });

  it("names the file, document, resource and field of every problem, and says nothing was sent", () => {
    const text = `${tp("fine")}---\n${tp("wrong").replace("requestTimeout: 2s", "retries: {attempts: -1}")}---\n${tp("Bad_Name")}`;
    const message = thrown(() => validated(parseDocuments(text, "p/x.yaml")));
    expect(message).toMatch(/^2 problem\(s\) in the documents; nothing was sent\n/);
    expect(message).toContain("  p/x.yaml#2 TrafficPolicy/wrong spec.policy.retries.attempts: ");
    expect(message).toContain("  p/x.yaml#3 TrafficPolicy/Bad_Name metadata.name: ");
  });

  it("refuses a name twice in the documents, naming both places", () => {
    const message = thrown(() => validated([...parseDocuments(tp("a"), "one.yaml"), ...parseDocuments(tp("a"), "two.yaml")]));
    expect(message).toContain("two.yaml#1 TrafficPolicy/a metadata.name: TrafficPolicy/a also appears in one.yaml#1");
  });

  it("refuses a kind that is not a user resource's first, as apply does", () => {
    expect(thrown(() => checkKinds(parseDocuments("kind: Deployment\nmetadata: {name: web}\n", "d.yaml")))).toBe(
      'd.yaml#1: kind must be VirtualMesh, TrafficPolicy or AccessPolicy, not "Deployment"',
    );
    expect(thrown(() => validated(parseDocuments("metadata: {name: web}\n", "d.yaml")))).toContain("not null");
  });
});

describe("storedForm", () => {
  it("keeps what a user writes, in canonical key order, and drops server fields, status and empty maps", () => {
    const stored = {
      status: { state: "ACCEPTED" },
      spec: { policy: { requestTimeout: "2s" }, destinationSelector: [] },
      metadata: { uid: "u", labels: {}, annotations: { note: "x" }, name: "a", generation: 3, resourceVersion: "9", source: { cluster: "east" } },
      kind: "TrafficPolicy",
      apiVersion: "meshplane.dev/v1",
    };
    const form = storedForm(stored);
    expect(form).toEqual({
      apiVersion: "meshplane.dev/v1",
      kind: "TrafficPolicy",
      metadata: { name: "a", annotations: { note: "x" } },
      spec: { destinationSelector: [], policy: { requestTimeout: "2s" } },
    });
    expect(Object.keys(form.spec as object)).toEqual(["destinationSelector", "policy"]);
  });

  it("is the same for a document and what storing it leaves, so an unchanged apply shows no difference", () => {
    const [doc] = validated(parseDocuments(tp("a", "\n  labels: {team: shop}\n  annotations: {}\n  resourceVersion: '4'"), "a.yaml"));
    const stored = { ...doc?.doc, metadata: { name: "a", labels: { team: "shop" }, uid: "u", generation: 1, resourceVersion: "7" }, status: {} };
    expect(storedForm(stored)).toEqual(storedForm(doc?.doc ?? {}));
  });
});
