import { describe, expect, it } from "vitest";
import { authoringClusters, deleteWarning, isAuthoredName, matchesSourceFilter, sourceFacts, sourceLabel, sourceNote } from "./authored";
import { href, parseRoute } from "./router";

const source = { cluster: "east", namespace: "shop", name: "cart-retries", uid: "0b6f-4c1e", generation: 4 };
const authored = { metadata: { name: "cart-retries.shop.east", source } };
const viaApi = { metadata: { name: "reviews-timeout" } };
const west = { metadata: { name: "a.b.west", source: { ...source, cluster: "west" } } };

describe("authored resources in the console", () => {
  it("marks where one came from and says where to change it", () => {
    expect(sourceLabel(source)).toBe("from cluster east · shop/cart-retries");
    expect(sourceNote("TrafficPolicy", source)).toBe(
      "Authored in cluster east: change it in Git, or with kubectl in that cluster (TrafficPolicy shop/cart-retries). It is read-only here.",
    );
    expect(deleteWarning("TrafficPolicy", source)).toContain("submits it again while the custom resource TrafficPolicy shop/cart-retries exists");
  });

  it("lists the source's facts, the custom resource's generation beside the stored one", () => {
    expect(sourceFacts(source, 2)).toEqual([
      ["Cluster", "east"],
      ["Namespace", "shop"],
      ["Name", "cart-retries"],
      ["UID", "0b6f-4c1e"],
      ["Generation", "4 in the cluster; stored as generation 2"],
    ]);
    expect(sourceFacts(source, undefined).at(-1)).toEqual(["Generation", "4 in the cluster; stored as generation -"]);
  });

  it("filters by source: all, the API's, one cluster's", () => {
    const all = [authored, viaApi, west];
    expect(all.filter((r) => matchesSourceFilter(r, ""))).toEqual(all);
    expect(all.filter((r) => matchesSourceFilter(r, "api"))).toEqual([viaApi]);
    expect(all.filter((r) => matchesSourceFilter(r, "cluster:east"))).toEqual([authored]);
    expect(all.filter((r) => matchesSourceFilter(r, "cluster:nowhere"))).toEqual([]);
    expect(authoringClusters([west, viaApi, authored, authored])).toEqual(["east", "west"]);
  });

  it("tells an authored name from its route alone: only authored names have dots", () => {
    expect(isAuthoredName("cart-retries.shop.east")).toBe(true);
    expect(isAuthoredName("reviews-timeout")).toBe(false);
  });

  it("routes a dotted name as one part, to the policy and to its editor, and back", () => {
    const name = "cart-retries.shop.east";
    expect(href(["policies", "trafficpolicies", name])).toBe("#/policies/trafficpolicies/cart-retries.shop.east");
    expect(parseRoute(href(["policies", "trafficpolicies", name]))).toEqual({ page: "policy", collection: "trafficpolicies", name });
    expect(parseRoute(href(["edit", "accesspolicies", name]))).toEqual({ page: "edit", collection: "accesspolicies", name });
    // Percent-encoded by hand (a link pasted from elsewhere) reads the same.
    expect(parseRoute("#/policies/trafficpolicies/cart-retries%2Eshop%2Eeast")).toEqual({ page: "policy", collection: "trafficpolicies", name });
    expect(parseRoute(href(["policies"], { source: "cluster:east" }))).toMatchObject({ page: "policies" });
    expect((parseRoute(href(["policies"], { source: "cluster:east" })) as { query: URLSearchParams }).query.get("source")).toBe("cluster:east");
  });

  it("reads malformed percent-encoding as a page that does not exist, not a crash", () => {
    expect(parseRoute("#/policies/trafficpolicies/%E0%A4%A")).toEqual({ page: "not-found", path: "/policies/trafficpolicies/%E0%A4%A" });
  });
});
