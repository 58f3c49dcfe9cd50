import { describe, expect, it } from "vitest";
import { UsageError } from "../config";
import { grantText } from "../kinds";
import { grantBody } from "./clusters";

describe("cluster grant (docs/gitops.md#grants)", () => {
  it.each<[string, Parameters<typeof grantBody>[1], ReturnType<typeof grantBody>]>([
    [
      "kinds and clusters",
      { kinds: "TrafficPolicy,AccessPolicy,VirtualMesh", clusters: "east,west" },
      { kinds: ["TrafficPolicy", "AccessPolicy", "VirtualMesh"], clusters: ["east", "west"] },
    ],
    ["short names, every cluster", { kinds: "tp, vm", clusters: "*" }, { kinds: ["TrafficPolicy", "VirtualMesh"], clusters: ["*"] }],
    ["no kinds: authoring off", { kinds: "none" }, { kinds: [], clusters: ["east"] }],
    ["clusters alone: the default kinds", { clusters: "east,west" }, { kinds: ["TrafficPolicy", "AccessPolicy"], clusters: ["east", "west"] }],
    ["--default", { default: true }, undefined],
  ])("takes %s", (_what, o, body) => {
    expect(grantBody("east", o)).toEqual(body);
  });

  it.each<[string, Parameters<typeof grantBody>[1], RegExp]>([
    ["nothing", {}, /give --kinds, --clusters or both, or --default/],
    ["--default with a grant", { default: true, clusters: "*" }, /without --kinds or --clusters/],
    ["a kind that cannot be authored", { kinds: "TrafficPolicy,destinations" }, /--kinds: destinations is not one of VirtualMesh, TrafficPolicy, AccessPolicy/],
    ["an unknown kind", { kinds: "Gateway" }, /--kinds: Gateway/],
  ])("refuses %s", (_what, o, message) => {
    expect(() => grantBody("east", o)).toThrow(UsageError);
    expect(() => grantBody("east", o)).toThrow(message);
  });

  it.each<[Parameters<typeof grantText>[0], string]>([
    [{ kinds: ["TrafficPolicy", "AccessPolicy"], clusters: ["east"], default: true }, "TrafficPolicy, AccessPolicy over east (default)"],
    [{ kinds: ["VirtualMesh"], clusters: ["*"] }, "VirtualMesh over every cluster"],
    [{ kinds: [], clusters: ["east"] }, "nothing (authoring off)"],
    [undefined, "-"],
  ])("shows %j as %s", (authoring, words) => {
    expect(grantText(authoring)).toBe(words);
  });
});
