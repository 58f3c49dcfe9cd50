import {
  ANNOTATION_GLOBAL_SERVICES,
  ANNOTATION_WAYPOINT_SERVICES,
  EAST_WEST_GATEWAY,
  type KubeObject,
  LABEL_GLOBAL,
  LABEL_USE_WAYPOINT,
} from "@meshplane/core";
import { describe, expect, it } from "vitest";
import { ownerLabels } from "../ownership";
import { FakeKube, SCOPE } from "../testing/fakes";
import { applyObjects } from "./apply";
import { bindingStage } from "./bindings";

const waypoint = (services: unknown, labels = ownerLabels(SCOPE)): KubeObject => ({
  apiVersion: "gateway.networking.k8s.io/v1",
  kind: "Gateway",
  metadata: { name: "meshplane-waypoint", namespace: "bookinfo", labels, annotations: { [ANNOTATION_WAYPOINT_SERVICES]: JSON.stringify(services) } },
  spec: { gatewayClassName: "istio-waypoint" },
});

/** meshplane's east-west gateway of a member cluster, listing `services` (namespace/name) to mark global. */
const eastWest = (services: unknown, labels = ownerLabels(SCOPE)): KubeObject => ({
  apiVersion: "gateway.networking.k8s.io/v1",
  kind: "Gateway",
  metadata: {
    name: EAST_WEST_GATEWAY,
    namespace: "istio-system",
    labels: { ...labels, "topology.istio.io/network": "network-1" },
    annotations: { [ANNOTATION_GLOBAL_SERVICES]: JSON.stringify(services) },
  },
  spec: { gatewayClassName: "istio-east-west" },
});

/** A cluster with the user's Services in bookinfo, each with a label of the user's. */
function cluster(...names: string[]): FakeKube {
  const kube = new FakeKube();
  for (const name of names)
    kube.put({ apiVersion: "v1", kind: "Service", metadata: { name, namespace: "bookinfo", labels: { team: "books" } }, spec: { ports: [{ port: 9080 }] } });
  return kube;
}

const labelsOf = (kube: FakeKube, name: string) => kube.get("Service", "bookinfo", name)?.metadata?.labels;
const bindings = (kube: FakeKube, objects: KubeObject[], failed: string[] = []) => bindingStage({ kube, scope: SCOPE }, { objects, failed: new Set(failed) });

describe("waypoint bindings", () => {
  it("labels each listed Service with its waypoint under the binding manager, leaving the user's labels alone", async () => {
    const kube = cluster("reviews", "ratings", "details");
    const { results } = await bindings(kube, [waypoint(["ratings", "reviews"])]);
    expect(results).toEqual([]);
    expect(labelsOf(kube, "reviews")).toEqual({ team: "books", [LABEL_USE_WAYPOINT]: "meshplane-waypoint" });
    expect(labelsOf(kube, "ratings")).toEqual({ team: "books", [LABEL_USE_WAYPOINT]: "meshplane-waypoint" });
    expect(labelsOf(kube, "details")).toEqual({ team: "books" });
    expect(kube.get("Service", "bookinfo", "reviews")?.metadata?.managedFields).toEqual([
      { manager: "meshplane-waypoint-binding", operation: "Apply", fieldsV1: { "f:metadata": { "f:labels": { [`f:${LABEL_USE_WAYPOINT}`]: {} } } } },
    ]);
  });

  it("never creates a Service: a missing one is a failure of the waypoint, which its policies' statuses show", async () => {
    const kube = cluster("reviews");
    const { results } = await bindings(kube, [waypoint(["reviews", "gone"])]);
    expect(results).toEqual([
      {
        apiVersion: "gateway.networking.k8s.io/v1",
        kind: "Gateway",
        namespace: "bookinfo",
        name: "meshplane-waypoint",
        state: "failed",
        error: "bind Service bookinfo/gone to waypoint meshplane-waypoint: the Service does not exist; meshplane creates none",
      },
    ]);
    expect(kube.get("Service", "bookinfo", "gone")).toBeUndefined();
  });

  it("reports a label changed by hand as a conflict and does not overwrite it", async () => {
    const kube = cluster("reviews");
    await bindings(kube, [waypoint(["reviews"])]);
    kube.label("Service", "bookinfo", "reviews", LABEL_USE_WAYPOINT, "my-waypoint");
    const { results } = await bindings(kube, [waypoint(["reviews"])]);
    expect(results.map((r) => `${r.state} ${r.kind} ${r.name}: ${r.error}`)).toEqual([
      expect.stringMatching(
        /^failed Gateway meshplane-waypoint: bind Service bookinfo\/reviews .*changed by hand\?.*does not overwrite it: remove the label \(kubectl label service -n bookinfo reviews istio\.io\/use-waypoint-\) .*\(.*conflict.*\)$/,
      ),
    ]);
    expect(labelsOf(kube, "reviews")?.[LABEL_USE_WAYPOINT]).toBe("my-waypoint");
    // Nor is it released when no longer wanted: it is the user's now.
    await bindings(kube, []);
    expect(labelsOf(kube, "reviews")).toEqual({ team: "books", [LABEL_USE_WAYPOINT]: "my-waypoint" });
  });

  it("releases a binding no waypoint lists any more, and only the label", async () => {
    const kube = cluster("reviews", "ratings");
    kube.label("Service", "bookinfo", "ratings", LABEL_USE_WAYPOINT, "user-waypoint");
    await bindings(kube, [waypoint(["reviews"])]);
    const { results } = await bindings(kube, []);
    expect(results.map((r) => `${r.state} ${r.kind} ${r.namespace}/${r.name}`)).toEqual(["pruned Service bookinfo/reviews"]);
    expect(labelsOf(kube, "reviews")).toEqual({ team: "books" });
    expect(labelsOf(kube, "ratings")).toEqual({ team: "books", [LABEL_USE_WAYPOINT]: "user-waypoint" });
  });

  it("leaves the bindings of a waypoint apply could not apply as they are", async () => {
    const kube = cluster("reviews");
    await bindings(kube, [waypoint(["reviews"])]);
    kube.calls = [];
    await bindings(kube, [waypoint(["reviews"])], ["Gateway/bookinfo/meshplane-waypoint"]);
    expect(kube.writes()).toEqual([]);
    expect(labelsOf(kube, "reviews")?.[LABEL_USE_WAYPOINT]).toBe("meshplane-waypoint");
  });

  it("keeps the bindings a waypoint apply could not apply dropped from its list, and releases another waypoint's", async () => {
    const kube = cluster("reviews", "ratings");
    const other = { ...waypoint(["ratings"]), metadata: { ...waypoint(["ratings"]).metadata, name: "other-waypoint" } };
    await bindings(kube, [waypoint(["reviews"]), other]);
    const { results } = await bindings(
      kube,
      [waypoint([]), { ...other, metadata: { ...other.metadata, annotations: { [ANNOTATION_WAYPOINT_SERVICES]: "[]" } } }],
      ["Gateway/bookinfo/meshplane-waypoint"],
    );
    expect(results.map((r) => `${r.state} ${r.name}`)).toEqual(["pruned ratings"]);
    expect(labelsOf(kube, "reviews")?.[LABEL_USE_WAYPOINT]).toBe("meshplane-waypoint");
    expect(labelsOf(kube, "ratings")).toEqual({ team: "books" });
  });

  it.each([
    ["not a list", "reviews"],
    ["a name that is no Service's", ["Reviews/x"]],
  ])("binds nothing from an annotation that is %s", async (_what, value) => {
    const kube = cluster("reviews");
    const { results } = await bindings(kube, [waypoint(value)]);
    expect(results.map((r) => r.error)).toEqual([`${ANNOTATION_WAYPOINT_SERVICES} is not a list of Service names: nothing bound`]);
    expect(kube.writes()).toEqual([]);
  });

  it("binds nothing for a Gateway the agent does not own", async () => {
    const kube = cluster("reviews");
    await bindings(kube, [waypoint(["reviews"], { app: "x" })]);
    expect(kube.writes()).toEqual([]);
  });

  it("never takes over a waypoint Gateway of the same name that is not meshplane's", async () => {
    const kube = cluster();
    const users = {
      apiVersion: "gateway.networking.k8s.io/v1",
      kind: "Gateway",
      metadata: { name: "meshplane-waypoint", namespace: "bookinfo", labels: { team: "books" } },
      spec: { gatewayClassName: "istio-waypoint" },
    };
    kube.put(users);
    const outcome = await applyObjects(kube, SCOPE, [waypoint(["reviews"])], new Map());
    expect(outcome.results[0]).toMatchObject({ state: "failed", error: expect.stringMatching(/exists and is not meshplane's; it is left as it is/) });
    expect(kube.get("Gateway", "bookinfo", "meshplane-waypoint")).toEqual(users);
    expect(outcome.failed.has("Gateway/bookinfo/meshplane-waypoint")).toBe(true);
  });
});

describe("global services", () => {
  const EAST_WEST_KEY = `Gateway/istio-system/${EAST_WEST_GATEWAY}`;

  it("marks each listed Service global under its own manager, the label alone, beside a waypoint binding", async () => {
    const kube = cluster("reviews", "ratings", "details");
    const { results } = await bindings(kube, [eastWest(["bookinfo/ratings", "bookinfo/reviews"]), waypoint(["reviews"])]);
    expect(results).toEqual([]);
    expect(labelsOf(kube, "reviews")).toEqual({ team: "books", [LABEL_USE_WAYPOINT]: "meshplane-waypoint", [LABEL_GLOBAL]: "true" });
    expect(labelsOf(kube, "ratings")).toEqual({ team: "books", [LABEL_GLOBAL]: "true" });
    expect(labelsOf(kube, "details")).toEqual({ team: "books" });
    expect(kube.get("Service", "bookinfo", "ratings")?.metadata?.managedFields).toEqual([
      { manager: "meshplane-global-service", operation: "Apply", fieldsV1: { "f:metadata": { "f:labels": { [`f:${LABEL_GLOBAL}`]: {} } } } },
    ]);
  });

  it("never creates a Service: a missing one is a failure of the east-west gateway", async () => {
    const kube = cluster("reviews");
    const { results } = await bindings(kube, [eastWest(["bookinfo/gone", "bookinfo/reviews"])]);
    expect(results).toEqual([
      {
        apiVersion: "gateway.networking.k8s.io/v1",
        kind: "Gateway",
        namespace: "istio-system",
        name: EAST_WEST_GATEWAY,
        state: "failed",
        error: `mark Service bookinfo/gone global (${LABEL_GLOBAL}: "true"): the Service does not exist; meshplane creates none`,
      },
    ]);
    expect(kube.get("Service", "bookinfo", "gone")).toBeUndefined();
  });

  it("reports a label set by hand to another value against the gateway, says what to do, and does not overwrite it", async () => {
    const kube = cluster("reviews");
    kube.label("Service", "bookinfo", "reviews", LABEL_GLOBAL, "false");
    const { results } = await bindings(kube, [eastWest(["bookinfo/reviews"])]);
    expect(results.map((r) => `${r.state} ${r.kind} ${r.namespace}/${r.name}: ${r.error}`)).toEqual([
      expect.stringMatching(
        /^failed Gateway istio-system\/istio-eastwestgateway: mark Service bookinfo\/reviews global .*changed by hand\?.*does not overwrite it: .*Istio keeps the Service local.*remove the label \(kubectl label service -n bookinfo reviews istio\.io\/global-\) and meshplane marks the Service global again.*\(docs\/ambient\.md#ambient-multicluster\) \(.*conflict.*\)$/,
      ),
    ]);
    expect(labelsOf(kube, "reviews")).toEqual({ team: "books", [LABEL_GLOBAL]: "false" });
    // Nor is it released when no longer listed: it is the user's.
    expect((await bindings(kube, [eastWest([])])).results).toEqual([]);
    expect(labelsOf(kube, "reviews")).toEqual({ team: "books", [LABEL_GLOBAL]: "false" });
  });

  it(`shares a label the user set to "true" too, and leaves it to them on release`, async () => {
    const kube = cluster("reviews");
    kube.label("Service", "bookinfo", "reviews", LABEL_GLOBAL, "true");
    expect((await bindings(kube, [eastWest(["bookinfo/reviews"])])).results).toEqual([]);
    const { results } = await bindings(kube, [eastWest([])]);
    expect(results.map((r) => `${r.state} ${r.namespace}/${r.name}`)).toEqual(["pruned bookinfo/reviews"]);
    expect(labelsOf(kube, "reviews")).toEqual({ team: "books", [LABEL_GLOBAL]: "true" });
  });

  it("releases a Service no list names any more, the global label only, leaving the waypoint binding and the user's own", async () => {
    const kube = cluster("reviews", "ratings");
    kube.label("Service", "bookinfo", "ratings", LABEL_GLOBAL, "true");
    await bindings(kube, [eastWest(["bookinfo/reviews"]), waypoint(["reviews"])]);
    const { results } = await bindings(kube, [eastWest([]), waypoint(["reviews"])]);
    expect(results.map((r) => `${r.state} ${r.kind} ${r.namespace}/${r.name}`)).toEqual(["pruned Service bookinfo/reviews"]);
    expect(labelsOf(kube, "reviews")).toEqual({ team: "books", [LABEL_USE_WAYPOINT]: "meshplane-waypoint" });
    expect(labelsOf(kube, "ratings")).toEqual({ team: "books", [LABEL_GLOBAL]: "true" });
    // The gateway gone (the federation ended) releases the same way.
    await bindings(kube, [eastWest(["bookinfo/reviews"])]);
    expect((await bindings(kube, [])).results.map((r) => `${r.state} ${r.name}`)).toEqual(["pruned reviews"]);
    expect(labelsOf(kube, "reviews")).toEqual({ team: "books" });
  });

  it("leaves the labels of an east-west gateway apply could not apply as they are", async () => {
    const kube = cluster("reviews", "ratings");
    await bindings(kube, [eastWest(["bookinfo/reviews"])]);
    kube.calls = [];
    await bindings(kube, [eastWest(["bookinfo/ratings"])], [EAST_WEST_KEY]);
    expect(kube.writes()).toEqual([]);
    expect(labelsOf(kube, "reviews")?.[LABEL_GLOBAL]).toBe("true");
    expect(labelsOf(kube, "ratings")?.[LABEL_GLOBAL]).toBeUndefined();
  });

  it.each([
    ["not JSON", undefined],
    ["not a list", "bookinfo/reviews"],
    ["a name without its namespace", ["reviews"]],
    ["a name that is no Service's", ["bookinfo/Reviews"]],
  ])("labels nothing from an annotation that is %s, and says so on the gateway", async (_what, value) => {
    const kube = cluster("reviews");
    const gateway = eastWest(value);
    if (value === undefined) gateway.metadata.annotations[ANNOTATION_GLOBAL_SERVICES] = "[bookinfo/reviews";
    const { results } = await bindings(kube, [gateway, waypoint(["reviews"])]);
    expect(results.map((r) => `${r.name}: ${r.error}`)).toEqual([
      `${EAST_WEST_GATEWAY}: ${ANNOTATION_GLOBAL_SERVICES} is not a list of Services (namespace/name): nothing marked global`,
    ]);
    expect(labelsOf(kube, "reviews")).toEqual({ team: "books", [LABEL_USE_WAYPOINT]: "meshplane-waypoint" });
  });

  it("keeps the labels it set while the list cannot be read", async () => {
    const kube = cluster("reviews");
    await bindings(kube, [eastWest(["bookinfo/reviews"])]);
    const { results } = await bindings(kube, [eastWest("bookinfo/reviews")]);
    expect(results.map((r) => r.state)).toEqual(["failed"]);
    expect(labelsOf(kube, "reviews")?.[LABEL_GLOBAL]).toBe("true");
  });

  it("marks nothing for a Gateway the agent does not own", async () => {
    const kube = cluster("reviews");
    await bindings(kube, [eastWest(["bookinfo/reviews"], { app: "x" })]);
    expect(kube.writes()).toEqual([]);
  });
});
