import { describe, expect, it } from "vitest";
import type { HttpMatcher } from "../../api/index";
import { matcherErrors, routeMatch } from "./matches";

describe("routeMatch: paths", () => {
  it.each<[string, HttpMatcher["uri"], unknown]>([
    ["an absolute exact path stays Exact", { exact: "/api/v1" }, { type: "Exact", value: "/api/v1" }],
    ["an exact path that is not absolute is a literal expression", { exact: "api.v1" }, { type: "RegularExpression", value: "api\\.v1" }],
    ["an exact path with // (refused by Gateway API's CEL rules) is a literal expression", { exact: "/a//b" }, { type: "RegularExpression", value: "/a//b" }],
    ["an exact path with a space is a literal expression", { exact: "/a b" }, { type: "RegularExpression", value: "/a b" }],
    ["an exact path with a fragment is a literal expression", { exact: "/a#b" }, { type: "RegularExpression", value: "/a#b" }],
    ["an exact path ending /. is a literal expression", { exact: "/a/." }, { type: "RegularExpression", value: "/a/\\." }],
    ["an exact path with an encoded slash is a literal expression", { exact: "/a%2Fb" }, { type: "RegularExpression", value: "/a%2Fb" }],
    ["an exact path with other escapes and sub-delims stays Exact", { exact: "/a%20b/c;d=e" }, { type: "Exact", value: "/a%20b/c;d=e" }],
    ["prefix / is every path, as an expression", { prefix: "/" }, { type: "RegularExpression", value: ".*" }],
    ["another prefix matches any string after it", { prefix: "/api" }, { type: "RegularExpression", value: "/api.*" }],
    ["a prefix's metacharacters are escaped", { prefix: "/v1.0/(x)" }, { type: "RegularExpression", value: "/v1\\.0/\\(x\\).*" }],
    ["a regex as written", { regex: "/items/[0-9]+" }, { type: "RegularExpression", value: "/items/[0-9]+" }],
  ])("%s", (_name, uri, path) => {
    expect(routeMatch({ uri })).toEqual({ path });
  });

  it("a matcher without a uri has Gateway API's default path, as the API server stores it", () => {
    expect(routeMatch({ method: "GET" })).toEqual({ path: { type: "RegularExpression", value: ".*" }, method: "GET" });
  });
});

const EVERY = { type: "RegularExpression", value: ".*" };

describe("routeMatch: headers, query parameters, method (without a uri: every path)", () => {
  it.each<[string, HttpMatcher, unknown]>([
    ["header exact, name lower-cased", { headers: [{ name: "X-User", value: "jason" }] }, { headers: [{ type: "Exact", name: "x-user", value: "jason" }] }],
    ["header regex", { headers: [{ name: "x-v", value: "v[12]", regex: true }] }, { headers: [{ type: "RegularExpression", name: "x-v", value: "v[12]" }] }],
    ["header presence", { headers: [{ name: "x-debug" }] }, { headers: [{ type: "RegularExpression", name: "x-debug", value: ".*" }] }],
    ["header with an empty exact value", { headers: [{ name: "x-e", value: "" }] }, { headers: [{ type: "RegularExpression", name: "x-e", value: "^$" }] }],
    [
      "a header named twice keeps the last, as Istio's match map does",
      { headers: [{ name: "X-A", value: "1" }, { name: "x-b" }, { name: "x-a", value: "2" }] },
      {
        headers: [
          { type: "Exact", name: "x-a", value: "2" },
          { type: "RegularExpression", name: "x-b", value: ".*" },
        ],
      },
    ],
    ["query exact", { queryParameters: [{ name: "debug", value: "1" }] }, { queryParams: [{ type: "Exact", name: "debug", value: "1" }] }],
    [
      "query regex",
      { queryParameters: [{ name: "v", value: "[0-9]+", regex: true }] },
      { queryParams: [{ type: "RegularExpression", name: "v", value: "[0-9]+" }] },
    ],
    ["query presence", { queryParameters: [{ name: "trace" }] }, { queryParams: [{ type: "RegularExpression", name: "trace", value: ".*" }] }],
    ["method as written", { method: "POST" }, { method: "POST" }],
    [
      "every field together",
      { uri: { exact: "/x" }, method: "PUT", headers: [{ name: "h", value: "v" }], queryParameters: [{ name: "q" }] },
      {
        path: { type: "Exact", value: "/x" },
        method: "PUT",
        headers: [{ type: "Exact", name: "h", value: "v" }],
        queryParams: [{ type: "RegularExpression", name: "q", value: ".*" }],
      },
    ],
  ])("%s", (_name, matcher, expected) => {
    expect(routeMatch(matcher)).toEqual({ path: EVERY, ...(expected as object) });
  });
});

describe("matcherErrors: what Gateway API cannot match", () => {
  it.each<[string, HttpMatcher[] | undefined, string[]]>([
    ["no matchers", undefined, []],
    ["plain matchers", [{ uri: { prefix: "/a" }, headers: [{ name: "x", value: "1" }], queryParameters: [{ name: "q" }] }], []],
    ["ignoreCase false is fine", [{ uri: { exact: "/a", ignoreCase: false } }], []],
    ["invertMatch false is fine", [{ headers: [{ name: "x", value: "1", invertMatch: false }] }], []],
    ["uri.ignoreCase", [{ uri: { exact: "/a", ignoreCase: true } }], ["httpRequestMatchers uri.ignoreCase: Gateway API matches paths case-sensitively only"]],
    [
      "headers invertMatch",
      [{ headers: [{ name: "x", value: "1", invertMatch: true }] }],
      ["httpRequestMatchers headers invertMatch: Gateway API cannot match a header's absence"],
    ],
    [
      "a query parameter name that is not an HTTP token",
      [{ queryParameters: [{ name: "filter[x]", value: "1" }] }],
      ['httpRequestMatchers queryParameters "filter[x]": Gateway API matches only query parameter names that are HTTP tokens'],
    ],
    [
      "each reason once, across matchers",
      [{ uri: { prefix: "/a", ignoreCase: true } }, { uri: { regex: "/b", ignoreCase: true }, headers: [{ name: "y", invertMatch: true }] }],
      [
        "httpRequestMatchers uri.ignoreCase: Gateway API matches paths case-sensitively only",
        "httpRequestMatchers headers invertMatch: Gateway API cannot match a header's absence",
      ],
    ],
  ])("%s", (_name, matchers, errors) => {
    expect(matcherErrors(matchers)).toEqual(errors);
  });
});
