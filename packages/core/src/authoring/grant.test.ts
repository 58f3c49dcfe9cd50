import { describe, expect, it } from "vitest";
import type { DestinationSelector } from "../api/selectors";
import type { StoredResource, UserDocument } from "../api/resource";
import { fieldErrors } from "../api/validate";
import { type AuthoringGrant, DEFAULT_GRANT_KINDS, authoringGrant, clipToGrant, grantErrors, grantOf } from "./grant";

const policy = (destinationSelector?: DestinationSelector[]): Pick<UserDocument, "kind" | "spec"> => ({
  kind: "TrafficPolicy",
  spec: { ...(destinationSelector ? { destinationSelector } : {}), policy: { requestTimeout: "5s" } } as UserDocument["spec"],
});
const vm = (spec: Partial<StoredResource<"VirtualMesh">["spec"]>): Pick<UserDocument, "kind" | "spec"> => ({
  kind: "VirtualMesh",
  spec: { meshes: [{ name: "istiod-east" }], ...spec } as UserDocument["spec"],
});
const east: AuthoringGrant = grantOf("east", undefined);
const every: AuthoringGrant = { kinds: ["VirtualMesh", "TrafficPolicy", "AccessPolicy"], clusters: ["*"] };
const meshCluster = (mesh: string): string | undefined => ({ "istiod-east": "east", "istiod-west": "west" })[mesh];
const paths = (errors: { path: string }[]) => errors.map((e) => e.path);

describe("a cluster's grant (docs/gitops.md#grants)", () => {
  it("is by default the policies, over the cluster itself", () => {
    expect(grantOf("east", undefined)).toEqual({ kinds: [...DEFAULT_GRANT_KINDS], clusters: ["east"] });
    expect(DEFAULT_GRANT_KINDS).toEqual(["TrafficPolicy", "AccessPolicy"]);
  });

  it("is the one a tenant admin set, when set", () => {
    const given: AuthoringGrant = { kinds: ["VirtualMesh"], clusters: ["west"] };
    expect(grantOf("east", given)).toBe(given);
  });

  it.each<[string, unknown, string[]]>([
    ["an unknown kind", { kinds: ["TrafficPolicy", "Mesh"], clusters: ["east"] }, ["kinds[1]"]],
    ["a cluster that is not a DNS label", { kinds: [], clusters: ["Bad_Name"] }, ["clusters[0]"]],
    ["no cluster", { kinds: [], clusters: [] }, ["clusters"]],
    ["* beside a cluster", { kinds: [], clusters: ["*", "east"] }, ["clusters"]],
    ["a field of its own", { kinds: [], clusters: ["east"], namespaces: ["shop"] }, ["namespaces"]],
    ["more kinds than there are", { kinds: ["TrafficPolicy", "TrafficPolicy", "AccessPolicy", "VirtualMesh"], clusters: ["east"] }, ["kinds"]],
  ])("refuses %s, naming the field", (_what, body, fields) => {
    const parsed = authoringGrant.safeParse(body);
    expect(parsed.success).toBe(false);
    if (!parsed.success) expect(paths(fieldErrors(parsed.error))).toEqual(fields);
  });

  it.each<[string, unknown]>([
    ["no kinds: authoring off", { kinds: [], clusters: ["east"] }],
    ["every cluster", { kinds: ["VirtualMesh"], clusters: ["*"] }],
    ["named clusters", { kinds: ["TrafficPolicy", "AccessPolicy"], clusters: ["east", "west"] }],
  ])("takes %s", (_what, body) => {
    expect(authoringGrant.parse(body)).toEqual(body);
  });
});

describe("grantErrors: what lies outside a grant", () => {
  it("is nothing for a policy within its own cluster, or with no cluster named", () => {
    expect(grantErrors(policy(), "east", east)).toEqual([]);
    expect(grantErrors(policy([{ kubeServiceMatcher: { labels: { app: "cart" } } }]), "east", east)).toEqual([]);
    expect(grantErrors(policy([{ kubeServiceMatcher: { clusters: ["east"] } }]), "east", east)).toEqual([]);
  });

  it("names a kind the grant does not allow, alone", () => {
    const errors = grantErrors(
      vm({ federation: { selectors: [{ destinationSelectors: [{ kubeServiceMatcher: { clusters: ["west"] } }] }] } } as never),
      "east",
      east,
    );
    expect(paths(errors)).toEqual(["kind"]);
    expect(errors[0]?.message).toContain("does not allow VirtualMesh");
    expect(paths(grantErrors(policy(), "east", { kinds: [], clusters: ["east"] }))).toEqual(["kind"]);
  });

  it("names every matcher cluster and service ref outside it", () => {
    const doc = policy([
      { kubeServiceMatcher: { clusters: ["east", "west"] } },
      {
        kubeServiceRefs: {
          services: [
            { cluster: "east", namespace: "shop", name: "cart" },
            { cluster: "north", namespace: "shop", name: "cart" },
          ],
        },
      },
    ]);
    const errors = grantErrors(doc, "east", east);
    expect(paths(errors)).toEqual([
      "spec.destinationSelector[0].kubeServiceMatcher.clusters[1]",
      "spec.destinationSelector[1].kubeServiceRefs.services[1].cluster",
    ]);
    expect(errors[0]?.message).toBe("selects cluster west, outside cluster east's grant (kinds: TrafficPolicy, AccessPolicy; clusters: east)");
    expect(errors[1]?.message).toContain("names a service of cluster north");
    expect(grantErrors(doc, "east", { ...east, clusters: ["east", "west", "north"] })).toEqual([]);
    expect(grantErrors(doc, "east", { ...east, clusters: ["*"] })).toEqual([]);
  });

  it("names a VirtualMesh's selectors, gateways and meshes of clusters outside it", () => {
    const doc = vm({
      meshes: [{ name: "istiod-east" }, { name: "istiod-west" }],
      federation: {
        selectors: [{ meshes: [{ name: "istiod-west" }], destinationSelectors: [{ kubeServiceMatcher: { clusters: ["west"] } }] }],
      },
      routing: { waypoints: "ON_DEMAND", waypointMeshes: [{ name: "istiod-west" }] },
    } as never);
    const grant: AuthoringGrant = { kinds: ["VirtualMesh"], clusters: ["east"] };
    expect(paths(grantErrors(doc, "east", grant, meshCluster))).toEqual([
      "spec.federation.selectors[0].destinationSelectors[0].kubeServiceMatcher.clusters[0]",
      "spec.meshes[1].name",
      "spec.federation.selectors[0].meshes[0].name",
      "spec.routing.waypointMeshes[0].name",
    ]);
    // A mesh not discovered (yet) names no cluster: it is not an error.
    expect(paths(grantErrors(doc, "east", grant))).toHaveLength(1);
    expect(grantErrors(doc, "east", every, meshCluster)).toEqual([]);
  });

  it("names an east-west gateway's selector outside it by its field", () => {
    const gateway = { kubeServiceRefs: { services: [{ cluster: "west", namespace: "istio-system", name: "eastwest" }] } };
    const doc = vm({ federation: { eastWestGateways: [{ destinationSelector: gateway }] } } as never);
    expect(paths(grantErrors(doc, "east", { kinds: ["VirtualMesh"], clusters: ["east"] }))).toEqual([
      "spec.federation.eastWestGateways[0].destinationSelector.kubeServiceRefs.services[0].cluster",
    ]);
  });
});

describe("clipToGrant: selectors that name no cluster narrowed to the grant", () => {
  it("makes no selector — every destination — one matcher of the grant's clusters", () => {
    expect(clipToGrant("TrafficPolicy", policy().spec, east)).toMatchObject({ destinationSelector: [{ kubeServiceMatcher: { clusters: ["east"] } }] });
    expect(clipToGrant("AccessPolicy", { destinationSelector: [] }, { ...east, clusters: ["east", "west"] })).toEqual({
      destinationSelector: [{ kubeServiceMatcher: { clusters: ["east", "west"] } }],
    });
  });

  it("gives a matcher without clusters the grant's, and leaves matchers with clusters and refs as they are", () => {
    const named: DestinationSelector = { kubeServiceMatcher: { clusters: ["east"], labels: { app: "a" } } };
    const ref: DestinationSelector = { kubeServiceRefs: { services: [{ cluster: "east", namespace: "shop", name: "cart" }] } };
    const spec = policy([{ kubeServiceMatcher: { labels: { app: "cart" }, namespaces: ["shop"] } }, named, ref]).spec;
    const clipped = clipToGrant("TrafficPolicy", spec, east) as { destinationSelector: DestinationSelector[] };
    expect(clipped.destinationSelector).toEqual([{ kubeServiceMatcher: { labels: { app: "cart" }, namespaces: ["shop"], clusters: ["east"] } }, named, ref]);
    expect(clipped.destinationSelector[1]).toBe(named);
    expect((spec as { destinationSelector: DestinationSelector[] }).destinationSelector[0]?.kubeServiceMatcher?.clusters).toBeUndefined();
  });

  it("returns the spec itself under a grant of every cluster", () => {
    const spec = policy().spec;
    expect(clipToGrant("TrafficPolicy", spec, every)).toBe(spec);
  });

  it("clips a VirtualMesh's federation selectors and gateways, and leaves one without federation alone", () => {
    const plain = vm({}).spec;
    expect(clipToGrant("VirtualMesh", plain, east)).toBe(plain);
    const spec = vm({
      federation: {
        selectors: [{ meshes: [{ name: "istiod-east" }] }],
        eastWestGateways: [{ destinationSelector: { kubeServiceMatcher: { labels: { istio: "eastwestgateway" } } } }],
      },
    } as never).spec;
    expect(clipToGrant("VirtualMesh", spec, east)).toMatchObject({
      federation: {
        selectors: [{ meshes: [{ name: "istiod-east" }], destinationSelectors: [{ kubeServiceMatcher: { clusters: ["east"] } }] }],
        eastWestGateways: [{ destinationSelector: { kubeServiceMatcher: { labels: { istio: "eastwestgateway" }, clusters: ["east"] } } }],
      },
    });
  });
});
