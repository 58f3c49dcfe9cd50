import { describe, expect, it } from "vitest";
import { indexCluster, selects, sortedRecord } from "./cluster-index";
import { cluster, pod, replicaSet } from "./test-objects";

describe("selects", () => {
  it.each([
    [{ app: "web" }, { app: "web", version: "v1" }, true],
    [{ app: "web", version: "v2" }, { app: "web", version: "v1" }, false],
    [{}, { app: "web" }, false],
    [undefined, { app: "web" }, false],
    [{ app: "web" }, undefined, false],
  ])("%j ⊆ %j is %s", (selector, labels, expected) => {
    expect(selects(selector, labels)).toBe(expected);
  });
});

describe("sortedRecord", () => {
  it("orders keys by code point", () => {
    expect(Object.keys(sortedRecord({ b: "1", B: "2", a: "3" }))).toEqual(["B", "a", "b"]);
  });
});

describe("indexCluster.podsOf", () => {
  const objects = cluster({
    replicaSets: [replicaSet("web-1", "shop", "web"), replicaSet("web-1", "other", "web"), { metadata: { name: "bare", namespace: "shop" } }],
    pods: [
      pod("web-1-b", "shop", { owner: { kind: "ReplicaSet", name: "web-1" } }),
      pod("web-1-a", "shop", { owner: { kind: "ReplicaSet", name: "web-1" } }),
      pod("web-1-c", "other", { owner: { kind: "ReplicaSet", name: "web-1" } }),
      pod("bare-x", "shop", { owner: { kind: "ReplicaSet", name: "bare" } }),
      pod("orphan", "shop", { owner: { kind: "ReplicaSet", name: "missing" } }),
      pod("db-0", "shop", { owner: { kind: "StatefulSet", name: "db", uid: "u1" } }),
    ],
  });
  const index = indexCluster(objects);

  it("follows ReplicaSets to their Deployment within the namespace, sorted by name", () => {
    expect(index.podsOf("Deployment", "shop", "web").map((p) => p.metadata.name)).toEqual(["web-1-a", "web-1-b"]);
  });

  it.each([
    [undefined, ["db-0"]],
    ["u1", ["db-0"]],
    ["u2", []],
  ])("matches owner uids when both sides have one (controller uid %s)", (uid, names) => {
    expect(index.podsOf("StatefulSet", "shop", "db", uid).map((p) => p.metadata.name)).toEqual(names);
  });
});
