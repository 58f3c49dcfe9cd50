import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { discoveryOf, registeredAgent } from "../support/agents";
import { type ControlPlane, accessPolicy, startControlPlane, trafficPolicy, virtualMesh } from "../support/control-plane";

// Every map whose keys a client chooses — labels, annotations, selectors' labels, subsets, headers,
// cluster labels, and an agent's discovered labels — keeps its keys as data: a key named after
// something every object inherits is stored and read back, and `__proto__` is either refused with the
// field named (label keys cannot be it) or kept (annotation and header names can).

let cp: ControlPlane;
let token: string;

beforeAll(async () => {
  cp = await startControlPlane();
  token = await cp.tenant("maps");
});
afterAll(() => cp.stop());

/** JSON text, so `__proto__` is a key as a client sends it (an object literal would set the prototype). */
const raw = (json: string) => JSON.parse(json) as Record<string, string>;
type Problem = { errors?: { path: string; message: string }[] };
type Doc = { metadata: { labels?: Record<string, string>; annotations?: Record<string, string> }; spec: Record<string, unknown> };
const names = (list: unknown) => (list as { items: { metadata?: { name: string }; name?: string }[] }).items.map((i) => i.metadata?.name ?? i.name);

const INHERITED = raw('{"constructor":"c","toString":"t","hasOwnProperty":"h","valueOf":"v"}');

describe("maps taken from a client treat every key as data", () => {
  it.each([
    ["trafficpolicies", trafficPolicy("inherited-names")],
    ["accesspolicies", accessPolicy("inherited-names")],
    ["virtualmeshes", virtualMesh("inherited-names")],
  ])("%s: labels and annotations named constructor, toString, … are stored, read back and selectable", async (path, doc) => {
    const body = { ...doc, metadata: { ...doc.metadata, labels: INHERITED, annotations: raw('{"constructor":"a","__proto__":"b"}') } };
    const created = await cp.request("POST", `/v1/${path}`, { token, body });
    expect(created.status).toBe(201);
    const read = (await (await cp.request("GET", `/v1/${path}/inherited-names`, { token })).json()) as Doc;
    expect(read.metadata.labels).toEqual(INHERITED);
    expect(JSON.stringify(read.metadata.annotations)).toBe('{"constructor":"a","__proto__":"b"}');
    expect(names(await (await cp.request("GET", `/v1/${path}?labelSelector=constructor%3Dc`, { token })).json())).toEqual(["inherited-names"]);
    expect(names(await (await cp.request("GET", `/v1/${path}?labelSelector=toString%20in%20(x)`, { token })).json())).toEqual([]);
    const replaced = await cp.request("PUT", `/v1/${path}/inherited-names`, {
      token,
      body: { ...body, metadata: { ...body.metadata, labels: raw('{"valueOf":"w"}') } },
    });
    expect(replaced.status).toBe(200);
    expect(((await replaced.json()) as Doc).metadata.labels).toEqual({ valueOf: "w" });
  });

  it("a label key __proto__ is refused with 400 naming the field, anywhere a label map is taken, and nothing is stored", async () => {
    const proto = raw('{"__proto__":"x"}');
    const cases: [string, string, unknown, string][] = [
      ["POST", "/v1/trafficpolicies", { ...trafficPolicy("proto-labels"), metadata: { name: "proto-labels", labels: proto } }, "metadata.labels.__proto__"],
      [
        "POST",
        "/v1/trafficpolicies",
        trafficPolicy("proto-selector", { destinationSelector: [{ kubeServiceMatcher: { labels: proto } }] }),
        "spec.destinationSelector[0].kubeServiceMatcher.labels.__proto__",
      ],
      [
        "POST",
        "/v1/accesspolicies",
        accessPolicy("proto-source", {
          sourceSelector: [{ kubeIdentityMatcher: { namespaces: ["a"] } }],
          destinationSelector: [{ kubeServiceMatcher: { labels: proto } }],
        }),
        "spec.destinationSelector[0].kubeServiceMatcher.labels.__proto__",
      ],
      ["POST", "/v1/clusters", { name: "proto-cluster", labels: proto }, "labels.__proto__"],
      [
        "POST",
        "/v1/apply",
        { documents: [{ ...virtualMesh("proto-vm"), metadata: { name: "proto-vm", labels: proto } }] },
        "documents[0].metadata.labels.__proto__",
      ],
    ];
    for (const [method, path, body, field] of cases) {
      const res = await cp.request(method, path, { token, raw: JSON.stringify(body) });
      expect(res.status, `${method} ${path}`).toBe(400);
      const problem = (await res.json()) as Problem;
      expect(
        problem.errors?.map((e) => e.path),
        `${method} ${path}`,
      ).toContain(field);
      expect(problem.errors?.find((e) => e.path === field)?.message).toMatch(/label key/);
    }
    for (const path of [
      "/v1/trafficpolicies/proto-labels",
      "/v1/trafficpolicies/proto-selector",
      "/v1/accesspolicies/proto-source",
      "/v1/clusters/proto-cluster",
      "/v1/virtualmeshes/proto-vm",
    ]) {
      expect((await cp.request("GET", path, { token })).status, path).toBe(404);
    }
  });

  it("cluster labels named constructor are stored and read back", async () => {
    const res = await cp.request("POST", "/v1/clusters", { token, body: { name: "labelled", labels: INHERITED } });
    expect(res.status).toBe(201);
    const cluster = (await (await cp.request("GET", "/v1/clusters/labelled", { token })).json()) as { labels?: Record<string, string> };
    expect(cluster.labels).toEqual(INHERITED);
  });

  it("through translation: selectors on discovered labels named constructor match, headers named __proto__ and constructor reach the cluster", async () => {
    const { client } = await registeredAgent(cp, token, "maps", "east");
    const report = discoveryOf("istio-bookinfo", "east");
    // The agent saw a Service and its pods labelled `constructor: yes` (any Kubernetes label key is).
    for (const d of report.destinations) {
      if (d.spec.name !== "reviews") continue;
      d.spec.labels = { ...d.spec.labels, constructor: "yes" };
      for (const e of d.spec.endpoints) e.labels = { ...e.labels, constructor: "yes" };
    }
    expect((await client.discovery(report)).changed).toBe(true);
    const policy = trafficPolicy("headers", {
      destinationSelector: [{ kubeServiceMatcher: { labels: { constructor: "yes" }, namespaces: ["bookinfo"] } }],
      policy: {
        headerManipulation: { appendRequestHeaders: raw('{"__proto__":"p","constructor":"c"}'), appendResponseHeaders: raw('{"hasOwnProperty":"h"}') },
      },
    });
    const other = trafficPolicy("inherited-selects-nothing", { destinationSelector: [{ kubeServiceMatcher: { labels: { valueOf: "x" } } }] });
    for (const doc of [policy, other]) expect((await cp.request("POST", "/v1/trafficpolicies", { token, body: doc })).status).toBe(201);
    expect(await cp.work()).toMatchObject({ failed: 0 });

    const stored = (await (await cp.request("GET", "/v1/trafficpolicies/headers", { token })).json()) as Doc;
    expect(JSON.stringify((stored.spec.policy as { headerManipulation: unknown }).headerManipulation)).toBe(
      '{"appendRequestHeaders":{"__proto__":"p","constructor":"c"},"appendResponseHeaders":{"hasOwnProperty":"h"}}',
    );
    const status = (await (await cp.request("GET", "/v1/trafficpolicies/headers", { token })).json()) as {
      status: { state: string; destinations?: Record<string, unknown> };
    };
    expect(Object.keys(status.status.destinations ?? {})).toEqual(["reviews-bookinfo-east"]);
    const none = (await (await cp.request("GET", "/v1/trafficpolicies/inherited-selects-nothing", { token })).json()) as {
      status: { destinations?: Record<string, unknown> };
    };
    expect(Object.keys(none.status.destinations ?? {})).toEqual([]);

    const snapshot = JSON.stringify(await (await cp.request("GET", "/v1/clusters/east/snapshot", { token })).json());
    expect(snapshot).toContain('"add":{"__proto__":"p","constructor":"c"}');
    expect(snapshot).toContain('"add":{"hasOwnProperty":"h"}');
  });
});
