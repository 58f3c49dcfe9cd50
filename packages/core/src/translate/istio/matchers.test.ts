import { describe, expect, it } from "vitest";
import { isCatchAll, matchVariants, requestMatch, sourceMatches } from "./matchers";

describe("requestMatch", () => {
  it("maps every matcher field to Istio's match", () => {
    expect(
      requestMatch({
        uri: { regex: "/a/[0-9]+", ignoreCase: true },
        method: "PUT",
        headers: [{ name: "X-A", value: "1" }, { name: "x-b", value: "v.*", regex: true }, { name: "x-c" }, { name: "x-d", value: "no", invertMatch: true }],
        queryParameters: [{ name: "q", value: "1" }, { name: "r" }],
      }),
    ).toEqual({
      uri: { regex: "/a/[0-9]+" },
      ignoreUriCase: true,
      method: { exact: "PUT" },
      headers: { "x-a": { exact: "1" }, "x-b": { regex: "v.*" }, "x-c": { regex: ".*" } },
      withoutHeaders: { "x-d": { exact: "no" } },
      queryParams: { q: { exact: "1" }, r: { regex: ".*" } },
    });
  });
});

describe("sourceMatches", () => {
  it.each([
    ["no selectors: every source", undefined, [{}]],
    ["labels only", [{ kubeWorkloadMatcher: { labels: { app: "a" } } }], [{ sourceLabels: { app: "a" } }]],
    ["one match per namespace", [{ kubeWorkloadMatcher: { namespaces: ["b", "a"] } }], [{ sourceNamespace: "a" }, { sourceNamespace: "b" }]],
    ["selector for another cluster: nothing here", [{ kubeWorkloadMatcher: { clusters: ["other"] } }], []],
    ["selector for this cluster: every source here", [{ kubeWorkloadMatcher: { clusters: ["here"] } }], [{}]],
    ["empty namespace list matches nothing", [{ kubeWorkloadMatcher: { namespaces: [] } }], []],
  ])("%s", (_name, selectors, expected) => {
    expect(sourceMatches(selectors, "here")).toEqual(expected);
  });

  it("drops duplicate variants", () => {
    expect(sourceMatches([{ kubeWorkloadMatcher: { labels: { a: "b" } } }, { kubeWorkloadMatcher: { labels: { a: "b" } } }], "here")).toHaveLength(1);
  });
});

describe("matchVariants", () => {
  it("crosses request matchers with sources", () => {
    const variants = matchVariants([{ kubeWorkloadMatcher: { namespaces: ["x", "y"] } }], [{ uri: { prefix: "/a" } }, { method: "GET" }], "c");
    expect(variants).toHaveLength(4);
    expect(variants).toContainEqual({ uri: { prefix: "/a" }, sourceNamespace: "y" });
  });
});

describe("isCatchAll", () => {
  it.each([
    [{ port: 80 }, true],
    [{}, true],
    [{ port: 80, sourceLabels: { a: "b" } }, false],
    [{ port: 80, uri: { prefix: "/" } }, false],
  ])("%j → %s", (match, expected) => {
    expect(isCatchAll(match)).toBe(expected);
  });
});
