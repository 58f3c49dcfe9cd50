import { describe, expect, it } from "vitest";
import { generatedLabel, generatedName, subsetName } from "./naming";

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
  const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

  it("joins parts with '.', so no name of two parts equals a Service's name", () => {
    expect(generatedName("reviews")).toBe("reviews");
    expect(generatedName("reviews", "waypoint")).toBe("reviews.waypoint");
    expect(generatedName("api", "shop", "callers")).not.toBe(generatedName("api-shop", "callers"));
    expect(generatedName("reviews.bookinfo.svc.cluster-1.global")).toBe("reviews.bookinfo.svc.cluster-1.global");
  });

  it("stays a DNS-1123 subdomain of at most 253 characters when long", () => {
    const name = generatedName("a".repeat(63), "b".repeat(63), "c".repeat(63), "d".repeat(63), "callers");
    expect(name.length).toBeLessThanOrEqual(253);
    expect(name).toMatch(SUBDOMAIN);
    expect(name).not.toBe(generatedName("a".repeat(63), "b".repeat(63), "c".repeat(63), "d".repeat(63), "caller"));
  });
});

describe("generatedLabel", () => {
  it("joins parts with '-', doubling those inside every part but the last, and stays a DNS label", () => {
    expect(generatedLabel("all", "istio-eastwestgateway")).toBe("all-istio-eastwestgateway");
    expect(generatedLabel("a", "b-c")).not.toBe(generatedLabel("a-b", "c"));
    const name = generatedLabel("a".repeat(40), "b".repeat(40));
    expect(name.length).toBeLessThanOrEqual(63);
    expect(name).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
  });
});
