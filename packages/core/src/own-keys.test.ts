import { describe, expect, it } from "vitest";
import { z } from "zod";
import { clientMap, labelMap } from "./api/common";
import { matchesLabels, parseLabelSelector } from "./api/label-selector";
import { selects, sortedRecord } from "./discovery/cluster-index";
import { ownValue, setOwn } from "./own-keys";
import { canonicalJson } from "./translate/output/canonical";
import { OwnedFields } from "./translate/policy/owned-fields";
import { hasLabels } from "./translate/input/placement-index";
import { overlay } from "./translate/istio/caller-scopes";

/** Names every plain object inherits, and the one whose assignment replaces the prototype. */
const INHERITED = ["constructor", "toString", "hasOwnProperty", "valueOf", "isPrototypeOf", "__proto__"];
const fromJson = (text: string) => JSON.parse(text) as Record<string, string>;

describe("client maps keep every key as data", () => {
  it("parses any map into a prototype-less object holding exactly the keys sent", () => {
    const anyKeys = clientMap(z.string(), z.string());
    const sent = fromJson('{"__proto__":"p","constructor":"c","toString":"t","a":"b"}');
    const parsed = anyKeys.parse(sent);
    expect(Object.getPrototypeOf(parsed)).toBeNull();
    expect(Object.keys(parsed)).toEqual(["__proto__", "constructor", "toString", "a"]);
    expect(JSON.stringify(parsed)).toBe('{"__proto__":"p","constructor":"c","toString":"t","a":"b"}');
    expect(anyKeys.parse({})).toEqual({});
    expect((anyKeys.parse({}) as Record<string, unknown>).constructor).toBeUndefined();
  });

  it("checks a __proto__ key against the key rule like any other: a label key it is not", () => {
    const result = labelMap.safeParse(fromJson('{"__proto__":"x"}'));
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => [i.path, i.message])).toEqual([[["__proto__"], 'key "__proto__": must be a Kubernetes label key ([prefix/]name)']]);
    expect(labelMap.parse({ constructor: "x", toString: "y" })).toEqual({ constructor: "x", toString: "y" });
    expect(labelMap.safeParse({ app: "bad value!" }).error?.issues[0]?.path).toEqual(["app"]);
    expect(labelMap.safeParse(["a"]).success).toBe(false);
  });

  it("is described in JSON Schema as the record it is", () => {
    const schema = z.toJSONSchema(labelMap, { io: "input", unrepresentable: "any" }) as {
      type: string;
      propertyNames: { pattern: string };
      additionalProperties: { maxLength: number };
    };
    expect(schema.type).toBe("object");
    expect(schema.propertyNames.pattern).toContain("[A-Za-z0-9]");
    expect(schema.additionalProperties.maxLength).toBe(63);
    expect(z.toJSONSchema(labelMap, { io: "output", unrepresentable: "any" })).toMatchObject({ type: "object", propertyNames: { type: "string" } });
  });

  it("reads no inherited name as set and writes __proto__ as a key", () => {
    const plain = fromJson('{"a":"b"}');
    for (const name of INHERITED) expect(ownValue(plain, name)).toBeUndefined();
    const out: Record<string, string> = {};
    setOwn(out, "__proto__", "v");
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(JSON.stringify(out)).toBe('{"__proto__":"v"}');
  });

  it("label matching, selectors and sorted copies see only the map's own keys", () => {
    const labels = fromJson('{"app":"web"}');
    for (const name of INHERITED) {
      expect(hasLabels(labels, { [name]: "x" })).toBe(false);
      expect(selects({ [name]: "x" }, labels)).toBe(false);
      expect(matchesLabels(parseLabelSelector(`${name === "__proto__" ? "constructor" : name}!=x`), labels)).toBe(true);
    }
    expect(hasLabels(fromJson('{"constructor":"x"}'), { constructor: "x" })).toBe(true);
    expect(matchesLabels(parseLabelSelector("constructor=x"), fromJson('{"constructor":"x"}'))).toBe(true);
    expect(matchesLabels(parseLabelSelector("constructor"), labels)).toBe(false);
    expect(JSON.stringify(sortedRecord(fromJson('{"z":"1","__proto__":"2"}')))).toBe('{"__proto__":"2","z":"1"}');
  });

  it("canonical JSON, overlays and owned fields carry a __proto__ or constructor key through", () => {
    const headers = fromJson('{"__proto__":"p","constructor":"c"}');
    expect(canonicalJson({ add: headers })).toBe('{"add":{"__proto__":"p","constructor":"c"}}');
    expect(JSON.stringify(overlay({}, { add: headers }))).toBe('{"add":{"__proto__":"p","constructor":"c"}}');
    const owned = new OwnedFields();
    owned.commit({ headers: { request: { add: headers } } }, "tp-1");
    expect(JSON.stringify(owned.value)).toBe('{"headers":{"request":{"add":{"__proto__":"p","constructor":"c"}}}}');
  });
});
