import { describe, expect, it } from "vitest";
import { compareSpecificity, type RankedRoute } from "./specificity";
import type { HttpMatch } from "./types";

const route = (match: HttpMatch, rank = 0): RankedRoute => ({ match, rank, text: JSON.stringify(match) });

describe("compareSpecificity", () => {
  it.each<[string, HttpMatch, HttpMatch]>([
    ["exact before regex", { uri: { exact: "/a" } }, { uri: { regex: "/a/.*/long" } }],
    ["regex before prefix", { uri: { regex: "/a" } }, { uri: { prefix: "/a/very/long" } }],
    ["prefix before no uri", { uri: { prefix: "/" } }, { headers: { a: { exact: "1" }, b: { exact: "2" } } }],
    ["longer prefix first", { uri: { prefix: "/api/v1" } }, { uri: { prefix: "/api" } }],
    ["more headers first", { uri: { prefix: "/a" }, headers: { x: { exact: "1" } } }, { uri: { prefix: "/a" } }],
    ["withoutHeaders count as headers", { withoutHeaders: { x: { exact: "1" } } }, { method: { exact: "GET" } }],
    ["more query params first", { queryParams: { q: { exact: "1" } } }, { sourceLabels: { a: "b" } }],
    ["more source labels first", { sourceLabels: { a: "b", c: "d" } }, { sourceLabels: { a: "b" } }],
    ["source namespace counts as a source condition", { sourceLabels: { a: "b" }, sourceNamespace: "ns" }, { sourceLabels: { a: "b" } }],
    ["method before none", { method: { exact: "GET" } }, {}],
  ])("%s", (_name, first, second) => {
    expect(compareSpecificity(route(first), route(second))).toBeLessThan(0);
    expect(compareSpecificity(route(second), route(first))).toBeGreaterThan(0);
  });

  it("orders equally specific routes by rank, then port", () => {
    expect(compareSpecificity(route({ port: 9 }, 0), route({ port: 1 }, 1))).toBeLessThan(0);
    expect(compareSpecificity(route({ port: 1 }, 0), route({ port: 9 }, 0))).toBeLessThan(0);
  });
});
