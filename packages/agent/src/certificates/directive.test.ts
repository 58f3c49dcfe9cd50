import { describe, expect, it } from "vitest";
import { parseDirectives } from "./directive";

const good = (mesh: string) => ({
  mesh,
  virtualMesh: "global",
  identity: `spiffe://cluster.local/ns/istio-system/sa/istiod`,
  secretNamespace: "istio-system",
  secretName: "cacerts",
  ttlDays: 365,
  rotateBeforeDays: 30,
  keyAlgorithm: "ECDSA_P256",
  autoRestartPods: false,
  issuer: `sha256:${"a".repeat(64)}`,
  trustBundle: [`sha256:${"b".repeat(64)}`],
  futureField: 1,
});

describe("parseDirectives", () => {
  it("keeps valid directives sorted by mesh and drops fields it does not know", () => {
    const { directives, refused } = parseDirectives([good("m2"), good("m1")]);
    expect(directives.map((d) => d.mesh)).toEqual(["m1", "m2"]);
    expect(directives[0]).not.toHaveProperty("futureField");
    expect(refused).toEqual([]);
  });

  it.each([
    [{ ...good("m1"), secretName: "other" }, "m1", /secretName/],
    [{ ...good("m1"), issuer: "md5:x" }, "m1", /issuer/],
    [{ ...good("m1"), identity: "https://x" }, "m1", /identity/],
    [{ nothing: true }, "unknown", /mesh/],
  ])("refuses %j as a failed result for its mesh, keeping the others", (bad, mesh, why) => {
    const { directives, refused } = parseDirectives([bad, good("m3")]);
    expect(directives.map((d) => d.mesh)).toEqual(["m3"]);
    expect(refused).toEqual([{ mesh, state: "failed", error: expect.stringMatching(why) }]);
  });
});
