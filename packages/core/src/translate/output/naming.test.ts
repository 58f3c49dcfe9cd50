import { describe, expect, it } from "vitest";
import { generatedName, subsetName } from "./naming";

describe("subsetName", () => {
  it.each([
    [{ version: "v2" }, "version-v2"],
    [{ version: "v2", track: "canary" }, "track-canary-version-v2"],
    [{ "app.kubernetes.io/version": "1.0" }, "app-kubernetes-io-version-1-0"],
  ])("%j → %s", (labels, name) => {
    expect(subsetName(labels)).toBe(name);
  });
});

describe("generatedName", () => {
  it("joins parts and stays a DNS label when long", () => {
    const name = generatedName("a".repeat(40), "b".repeat(40));
    expect(name.length).toBeLessThanOrEqual(63);
    expect(name).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
    expect(generatedName("reviews.bookinfo.svc.cluster-1.global")).toBe("reviews-bookinfo-svc-cluster-1-global");
  });
});
