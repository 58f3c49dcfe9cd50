import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { Canonicalizer, canonicalize, canonicalJson } from "./canonical";

describe("canonicalJson", () => {
  it.each([
    [{ spec: 1, b: 2, kind: "K", a: 3, metadata: {}, apiVersion: "v" }, '{"apiVersion":"v","kind":"K","metadata":{},"spec":1,"a":3,"b":2}'],
    [{ z: { y: 1, x: [{ b: 1, a: 2 }] } }, '{"z":{"x":[{"a":2,"b":1}],"y":1}}'],
    [{ a: undefined, b: null }, '{"b":null}'],
    [[3, 1, 2], "[3,1,2]"],
    ["text", '"text"'],
  ])("orders keys canonically and keeps array order: %j", (value, json) => {
    expect(canonicalJson(value)).toBe(json);
  });

  it("gives the same bytes whatever the key insertion order", () => {
    expect(canonicalJson({ a: 1, b: { c: 2, d: 3 } })).toBe(canonicalJson({ b: { d: 3, c: 2 }, a: 1 }));
  });

  it("does not mutate its input", () => {
    const input = { b: 1, a: 2 };
    canonicalize(input);
    expect(Object.keys(input)).toEqual(["b", "a"]);
  });

  it("reflects a mutation made between calls", () => {
    const shared = { a: 1 };
    expect(canonicalJson({ shared })).toBe('{"shared":{"a":1}}');
    shared.a = 2;
    expect(canonicalJson({ shared })).toBe('{"shared":{"a":2}}');
  });
});

describe("Canonicalizer.contentHash", () => {
  it("equals sha256 of the one-shot canonical JSON of {objects, certificates}", () => {
    const shared = { hosts: ["a"], location: "MESH_INTERNAL" };
    const objects = [
      { kind: "ServiceEntry", apiVersion: "v1", metadata: { name: "a" }, spec: shared },
      { kind: "ServiceEntry", apiVersion: "v1", metadata: { name: "b" }, spec: shared },
    ];
    const certificates = [{ mesh: "m", ttlDays: 1 }];
    const expected = createHash("sha256").update(canonicalJson({ objects, certificates })).digest("hex");
    expect(new Canonicalizer().contentHash(objects, certificates)).toBe(`sha256:${expected}`);
  });

  it("changes when any object changes", () => {
    const c = new Canonicalizer();
    expect(c.contentHash([{ a: 1 }], [])).not.toBe(c.contentHash([{ a: 2 }], []));
  });
});
