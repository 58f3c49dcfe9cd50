import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { DNS_LABEL } from "../api/common";
import { discoveredName, dnsSafeName, workloadName } from "./names";

describe("dnsSafeName", () => {
  it.each([
    ["reviews-bookinfo-cluster1", "reviews-bookinfo-cluster1"],
    ["Reviews-BookInfo-Cluster1", "reviews-bookinfo-cluster1"],
    ["a.b_c/d:e f", "a-b-c-d-e-f"],
    ["api.example.com-default-eu:west", "api-example-com-default-eu-west"],
    ["weird*chars@here", "weird-chars-here"],
  ])("%s → %s", (input, expected) => {
    expect(dnsSafeName(input)).toBe(expected);
  });

  it("keeps a name of exactly 63 characters as it is", () => {
    const name = "a".repeat(63);
    expect(dnsSafeName(name)).toBe(name);
  });

  it("shortens a long name to 31 characters, a dash and the sha256 of the sanitised text", () => {
    const long = `${"x".repeat(50)}.Namespace-cluster`;
    const sanitised = `${"x".repeat(50)}-namespace-cluster`;
    const hash = createHash("sha256").update(sanitised).digest("hex");
    const out = dnsSafeName(long);
    expect(out).toBe(`${"x".repeat(31)}-${hash.slice(0, 31)}`);
    expect(out).toHaveLength(63);
    expect(out).toMatch(DNS_LABEL);
  });

  it("gives different names to long inputs that share their first 31 characters", () => {
    const prefix = "p".repeat(40);
    expect(dnsSafeName(`${prefix}-one`)).not.toBe(dnsSafeName(`${prefix}-two`));
  });
});

describe("discoveredName and workloadName", () => {
  const ref = { name: "reviews", namespace: "bookinfo", cluster: "cluster1" };

  it("joins name, namespace and cluster", () => {
    expect(discoveredName(ref)).toBe("reviews-bookinfo-cluster1");
  });

  it.each([
    ["Deployment", "reviews-bookinfo-cluster1-deployment"],
    ["StatefulSet", "reviews-bookinfo-cluster1-statefulset"],
    ["DaemonSet", "reviews-bookinfo-cluster1-daemonset"],
  ] as const)("suffixes a %s workload", (kind, expected) => {
    expect(workloadName({ ...ref, kind })).toBe(expected);
  });

  it("appends the kind before hashing, so long workloads of different kinds differ", () => {
    const long = { name: "n".repeat(50), namespace: "ns", cluster: "c" };
    const deployment = workloadName({ ...long, kind: "Deployment" });
    const statefulSet = workloadName({ ...long, kind: "StatefulSet" });
    expect(deployment).toHaveLength(63);
    expect(deployment).not.toBe(statefulSet);
  });
});
