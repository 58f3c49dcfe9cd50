import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { CONTENT_HASH_SCHEME, Canonicalizer, canonicalize, canonicalJson } from "./canonical";

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

const sha = (text: string) => createHash("sha256").update(text).digest();
const json = (name: string) => `{"apiVersion":"v1","kind":"ServiceEntry","metadata":{"name":"${name}"},"spec":{"hosts":["a"],"location":"MESH_INTERNAL"}}`;

describe("Canonicalizer.contentHash", () => {
  it("is the tree its definition gives: scheme, certificates, then the digests of chunks of per-object digests, cut after a digest starting with a zero byte", () => {
    const shared = { hosts: ["a"], location: "MESH_INTERNAL" };
    const labels = { team: "x" };
    // Enough objects that some digests start with a zero byte, so the chunks are several.
    const names = Array.from({ length: 1200 }, (_, i) => `o-${i}`);
    const ends = names.filter((n) => sha(json(n))[0] === 0);
    expect(ends.length).toBeGreaterThan(1);
    const objects = names.map((name) => ({ kind: "ServiceEntry", apiVersion: "v1", metadata: { name, labels }, spec: shared }));
    const certificates = [{ mesh: "m", ttlDays: 1 }];
    const expected = createHash("sha256").update(`${CONTENT_HASH_SCHEME}\n[{"mesh":"m","ttlDays":1}]\n`);
    let chunk = createHash("sha256");
    names.forEach((name, i) => {
      chunk.update(sha(json(name)));
      chunk.update(sha('{"team":"x"}'));
      if (ends.includes(name) || i === names.length - 1) {
        expected.update(chunk.digest());
        chunk = createHash("sha256");
      }
    });
    expect(new Canonicalizer().contentHash(objects, certificates)).toBe(`sha256:${expected.digest("hex")}`);
  });

  it("changes when labels, certificates or the order of objects change", () => {
    const c = new Canonicalizer();
    const a = { apiVersion: "v1", kind: "K", metadata: { name: "a", labels: { x: "1" } } };
    const b = { apiVersion: "v1", kind: "K", metadata: { name: "b", labels: { x: "1" } } };
    const base = c.contentHash([a, b], []);
    expect(c.contentHash([a, { ...b, metadata: { ...b.metadata, labels: { x: "2" } } }], [])).not.toBe(base);
    expect(c.contentHash([b, a], [])).not.toBe(base);
    expect(c.contentHash([a, b], [{ mesh: "m" }])).not.toBe(base);
    // Labels moved between objects of one snapshot are a different snapshot too.
    expect(c.contentHash([{ ...a, metadata: { name: "a" } }, b], [])).not.toBe(base);
  });

  it("changes when any object changes", () => {
    const c = new Canonicalizer();
    expect(c.contentHash([{ a: 1 }], [])).not.toBe(c.contentHash([{ a: 2 }], []));
  });
});
