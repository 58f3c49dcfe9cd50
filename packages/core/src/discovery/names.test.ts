import { createHash } from "node:crypto";
import * as fc from "fast-check";
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

  it("joins name, namespace and cluster, doubling the dashes of name and namespace", () => {
    expect(discoveredName(ref)).toBe("reviews-bookinfo-cluster1");
    expect(discoveredName({ name: "istiod", namespace: "istio-system", cluster: "cluster-1" })).toBe("istiod-istio--system-cluster-1");
    expect(workloadName({ name: "reviews-v1", namespace: "bookinfo", cluster: "cluster-1", kind: "Deployment" })).toBe(
      "reviews--v1-bookinfo-cluster-1-deployment",
    );
  });

  it.each([
    ["Deployment", "reviews-bookinfo-cluster1-deployment"],
    ["StatefulSet", "reviews-bookinfo-cluster1-statefulset"],
    ["DaemonSet", "reviews-bookinfo-cluster1-daemonset"],
  ] as const)("suffixes a %s workload", (kind, expected) => {
    expect(workloadName({ ...ref, kind })).toBe(expected);
  });

  it("keeps apart the names that joining alone would merge (docs/api.md, Discovered names)", () => {
    // api in shop-us of east, api in shop of us-east: both were api-shop-us-east.
    const east = discoveredName({ name: "api", namespace: "shop-us", cluster: "east" });
    const usEast = discoveredName({ name: "api", namespace: "shop", cluster: "us-east" });
    expect(east).not.toBe(usEast);
    // A dashed name could pose as another namespace; a dotted one as a dashed one.
    expect(discoveredName({ name: "api-shop", namespace: "us", cluster: "east" })).not.toBe(
      discoveredName({ name: "api", namespace: "shop-us", cluster: "east" }),
    );
    expect(workloadName({ name: "my.app", namespace: "ns", cluster: "c", kind: "Deployment" })).not.toBe(
      workloadName({ name: "my-app", namespace: "ns", cluster: "c", kind: "Deployment" }),
    );
  });

  it("hashes what it cannot keep plain, after a --- that no plain name holds", () => {
    const hashed = discoveredName({ name: "api.v2", namespace: "istio-system", cluster: "east" });
    expect(hashed).toMatch(/^api-v2-istio-system-east---[0-9a-f]{16}$/);
    expect(hashed).toMatch(DNS_LABEL);
    const long = discoveredName({ name: "a-very-long-service-name", namespace: "a-very-long-namespace-x", cluster: "cluster-1" });
    expect(long).toMatch(/^a-very-long-service-name-a-very-long-namespa---[0-9a-f]{16}$/);
    expect(discoveredName({ name: "svc", namespace: "ns--x", cluster: "c" })).toMatch(/---[0-9a-f]{16}$/);
    expect(discoveredName({ name: "a-b-c", namespace: "d-e", cluster: "f-g" })).not.toContain("---");
  });

  it("appends the kind before hashing, so long workloads of different kinds differ", () => {
    const long = { name: "n".repeat(50), namespace: "ns", cluster: "c" };
    const deployment = workloadName({ ...long, kind: "Deployment" });
    const statefulSet = workloadName({ ...long, kind: "StatefulSet" });
    expect(deployment.length).toBeLessThanOrEqual(63);
    expect(deployment).not.toBe(statefulSet);
  });

  it("is injective over names, namespaces and clusters", () => {
    const part = fc.stringMatching(/^[a-z0-9]([-a-z0-9.]{0,40}[a-z0-9])?$/);
    const label = fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,30}[a-z0-9])?$/);
    fc.assert(
      fc.property(fc.array(fc.record({ name: part, namespace: label, cluster: label }), { minLength: 2, maxLength: 12 }), (refs) => {
        const byName = new Map<string, string>();
        for (const r of refs) {
          const name = discoveredName(r);
          expect(name).toMatch(DNS_LABEL);
          expect(name.length).toBeLessThanOrEqual(63);
          const seen = byName.get(name);
          const key = `${r.name}/${r.namespace}/${r.cluster}`;
          if (seen !== undefined) expect(seen).toBe(key);
          byName.set(name, key);
        }
      }),
      { numRuns: 500 },
    );
  }, 60_000);

  it("is injective on the pairs that clash most: names and namespaces cut at every dash", () => {
    const words = ["a", "b", "c", "a-b", "b-c", "a-b-c"];
    const seen = new Map<string, string>();
    for (const name of words)
      for (const namespace of words)
        for (const cluster of words) {
          const got = discoveredName({ name, namespace, cluster });
          const key = `${name}/${namespace}/${cluster}`;
          expect(seen.get(got) ?? key).toBe(key);
          seen.set(got, key);
        }
  });
});
