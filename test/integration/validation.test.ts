import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ControlPlane, accessPolicy, startControlPlane, trafficPolicy, virtualMesh } from "../support/control-plane";

let cp: ControlPlane;
let token: string;

beforeAll(async () => {
  cp = await startControlPlane();
  token = await cp.tenant("acme");
  await cp.jobs();
});
afterAll(() => cp.stop());

type Doc = { kind: string; metadata: Record<string, unknown>; spec: Record<string, unknown> } & Record<string, unknown>;
const tp = (policy: Record<string, unknown>, extra: Record<string, unknown> = {}): Doc => trafficPolicy("bad", { policy, ...extra }) as Doc;

/** [what is wrong, collection, document, the path the error must name] */
const CASES: [string, string, Doc, string][] = [
  ["wrong type", "trafficpolicies", tp({ retries: { attempts: "3" } }), "spec.policy.retries.attempts"],
  [
    "out of range weight",
    "trafficpolicies",
    tp({ trafficShift: { destinations: [{ kubeService: { cluster: "c1", namespace: "ns", name: "svc" }, weight: -1 }] } }),
    "spec.policy.trafficShift.destinations[0].weight",
  ],
  [
    "out of range percentage",
    "trafficpolicies",
    tp({ faultInjection: { abort: { httpStatus: 503 }, percentage: 101 } }),
    "spec.policy.faultInjection.percentage",
  ],
  ["bad HTTP status", "trafficpolicies", tp({ faultInjection: { abort: { httpStatus: 42 }, percentage: 10 } }), "spec.policy.faultInjection.abort.httpStatus"],
  ["bad duration", "trafficpolicies", tp({ requestTimeout: "5 seconds" }), "spec.policy.requestTimeout"],
  ["zero duration", "trafficpolicies", tp({ retries: { attempts: 2, perTryTimeout: "0s" } }), "spec.policy.retries.perTryTimeout"],
  ["bad DNS name", "trafficpolicies", { ...tp({}), metadata: { name: "Reviews_Canary" } }, "metadata.name"],
  ["name too long", "trafficpolicies", { ...tp({}), metadata: { name: "a".repeat(64) } }, "metadata.name"],
  [
    "bad namespace in selector",
    "trafficpolicies",
    tp({ requestTimeout: "1s" }, { destinationSelector: [{ kubeServiceMatcher: { namespaces: ["Bad NS"] } }] }),
    "spec.destinationSelector[0].kubeServiceMatcher.namespaces[0]",
  ],
  ["unknown field in spec", "trafficpolicies", tp({ requestTimeout: "1s", retry: { attempts: 1 } }), "spec.policy.retry"],
  ["unknown top-level field", "trafficpolicies", { ...tp({}), extra: true }, "extra"],
  [
    "both fixedDelay and abort",
    "trafficpolicies",
    tp({ faultInjection: { fixedDelay: "1s", abort: { httpStatus: 500 }, percentage: 1 } }),
    "spec.policy.faultInjection",
  ],
  ["bad regex", "trafficpolicies", tp({ requestTimeout: "1s" }, { httpRequestMatchers: [{ uri: { regex: "(" } }] }), "spec.httpRequestMatchers[0].uri.regex"],
  ["bad method", "trafficpolicies", tp({ requestTimeout: "1s" }, { httpRequestMatchers: [{ method: "FETCH" }] }), "spec.httpRequestMatchers[0].method"],
  ["bad label value", "trafficpolicies", { ...tp({}), metadata: { name: "bad", labels: { team: "has space" } } }, "metadata.labels.team"],
  ["wrong apiVersion", "trafficpolicies", { ...tp({}), apiVersion: "v1" }, "apiVersion"],
  ["kind of another collection", "trafficpolicies", { ...tp({}), kind: "AccessPolicy" }, "kind"],
  ["bad port", "accesspolicies", accessPolicy("bad", { allowedPorts: [70000] }) as Doc, "spec.allowedPorts[0]"],
  ["bad path", "accesspolicies", accessPolicy("bad", { allowedPaths: ["/a*b/c"] }) as Doc, "spec.allowedPaths[0]"],
  [
    "both identity selectors",
    "accesspolicies",
    accessPolicy("bad", {
      sourceSelector: [{ kubeIdentityMatcher: {}, kubeServiceAccountRefs: { serviceAccounts: [{ cluster: "c", namespace: "n", name: "s" }] } }],
    }) as Doc,
    "spec.sourceSelector[0]",
  ],
  ["unknown field", "accesspolicies", accessPolicy("bad", { allowedVerbs: ["GET"] }) as Doc, "spec.allowedVerbs"],
  ["no meshes", "virtualmeshes", virtualMesh("bad", { meshes: [] }) as Doc, "spec.meshes"],
  ["limited trust", "virtualmeshes", virtualMesh("bad", { mtlsConfig: { limited: {} } }) as Doc, "spec.mtlsConfig.limited"],
  [
    "bad key algorithm",
    "virtualmeshes",
    virtualMesh("bad", { mtlsConfig: { shared: { rootCertificateAuthority: { generated: { keyAlgorithm: "DSA" } } } } }) as Doc,
    "spec.mtlsConfig.shared.rootCertificateAuthority.generated.keyAlgorithm",
  ],
  ["bad globalAccessPolicy", "virtualmeshes", virtualMesh("bad", { globalAccessPolicy: "ON" }) as Doc, "spec.globalAccessPolicy"],
  ["bad hostname suffix", "virtualmeshes", virtualMesh("bad", { federation: { hostnameSuffix: "Not_OK" } }) as Doc, "spec.federation.hostnameSuffix"],
];

/** What a request could have changed: every stored resource and the tenant's revision. */
async function tenantState(): Promise<unknown> {
  const lists: Record<string, unknown> = {};
  for (const p of ["trafficpolicies", "accesspolicies", "virtualmeshes"]) {
    const res = await cp.request("GET", `/v1/${p}`, { token });
    expect(res.status).toBe(200);
    lists[p] = ((await res.json()) as { items: unknown[] }).items;
  }
  return { lists, revision: (await cp.store.tenants.get("acme")).revision };
}

/**
 * Sends a request the API must refuse and checks, around this one request, that it stored and
 * enqueued nothing. Compared with the state just before rather than with an empty tenant, so each
 * test checks itself whether it runs alone or after tests that did store something.
 */
async function refused(send: () => Promise<Response>): Promise<Response> {
  await cp.jobs();
  const before = await tenantState();
  const res = await send();
  expect(await tenantState()).toEqual(before);
  expect(await cp.jobs()).toEqual([]);
  return res;
}

describe("bad input gets a 400 naming the field and stores nothing", () => {
  it.each(CASES)("%s (%s)", async (_what, collection, doc, path) => {
    const res = await refused(() => cp.request("POST", `/v1/${collection}`, { token, body: doc }));
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    const problem = (await res.json()) as { errors: { path: string; message: string }[] };
    expect(problem.errors.map((e) => e.path)).toContain(path);
    expect(problem.errors.every((e) => e.message.length > 0)).toBe(true);
  });

  it("malformed JSON", async () => {
    const res = await refused(() => cp.request("POST", "/v1/trafficpolicies", { token, raw: '{"apiVersion": ' }));
    expect(res.status).toBe(400);
    expect(((await res.json()) as { errors: { path: string }[] }).errors[0]?.path).toBe("(body)");
  });

  it("wrong content type", async () => {
    const res = await refused(() =>
      cp.request("POST", "/v1/trafficpolicies", { token, raw: JSON.stringify(trafficPolicy("x")), headers: { "content-type": "text/plain" } }),
    );
    expect(res.status).toBe(400);
    expect(((await res.json()) as { errors: { path: string }[] }).errors[0]?.path).toBe("headers.content-type");
  });

  it("a replace whose body names another resource than the path", async () => {
    const res = await refused(() => cp.request("PUT", "/v1/trafficpolicies/one", { token, body: trafficPolicy("two") }));
    expect(res.status).toBe(400);
    expect(((await res.json()) as { errors: { path: string }[] }).errors[0]?.path).toBe("metadata.name");
  });

  it("a bad label selector", async () => {
    const res = await cp.request("GET", "/v1/trafficpolicies?labelSelector=a%20in%20(", { token });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { errors: { path: string }[] }).errors[0]?.path).toBe("query.labelSelector");
  });

  it("a body over 1 MiB is refused with 413", async () => {
    const huge = trafficPolicy("big", {}, { big: "x" });
    const raw = JSON.stringify({ ...huge, padding: "x".repeat(1024 * 1024) });
    const res = await refused(() => cp.request("POST", "/v1/trafficpolicies", { token, raw }));
    expect(res.status).toBe(413);
  });
});

describe("apply", () => {
  it("rejects the whole batch when one document is bad, naming it by index", async () => {
    const res = await refused(() =>
      cp.request("POST", "/v1/apply", { token, body: { documents: [trafficPolicy("good"), tp({ requestTimeout: "soon" }), { kind: "Pod" }] } }),
    );
    expect(res.status).toBe(400);
    const paths = ((await res.json()) as { errors: { path: string }[] }).errors.map((e) => e.path);
    expect(paths).toEqual(["documents[1].spec.policy.requestTimeout", "documents[2].kind"]);
  });

  it("rejects the same resource twice in one batch", async () => {
    const res = await refused(() => cp.request("POST", "/v1/apply", { token, body: { documents: [trafficPolicy("dup"), trafficPolicy("dup")] } }));
    expect(res.status).toBe(400);
  });

  it("creates and configures atomically with one revision, and is idempotent", async () => {
    const yaml = [
      "apiVersion: meshplane.dev/v1\nkind: TrafficPolicy\nmetadata: {name: a}\nspec:\n  policy: {requestTimeout: 5s}",
      "apiVersion: meshplane.dev/v1\nkind: AccessPolicy\nmetadata: {name: b}\nspec: {allowedMethods: [GET]}",
    ].join("\n---\n");
    const first = await cp.request("POST", "/v1/apply", { token, raw: yaml, headers: { "content-type": "application/yaml" } });
    expect(first.status).toBe(200);
    expect(((await first.json()) as { results: { action: string }[] }).results.map((r) => r.action)).toEqual(["created", "created"]);
    expect((await cp.jobs()).map((j) => j.body)).toEqual([{ tenantId: "acme", revision: 1 }]);

    const again = await cp.request("POST", "/v1/apply", { token, raw: yaml, headers: { "content-type": "application/yaml" } });
    expect(((await again.json()) as { results: { action: string }[] }).results.map((r) => r.action)).toEqual(["unchanged", "unchanged"]);
    expect(await cp.jobs()).toEqual([]);

    const changed = await cp.request("POST", "/v1/apply", { token, raw: yaml.replace("5s", "7s"), headers: { "content-type": "application/yaml" } });
    const results = ((await changed.json()) as { results: { action: string; generation: number }[] }).results;
    expect(results.map((r) => [r.action, r.generation])).toEqual([
      ["configured", 2],
      ["unchanged", 1],
    ]);
    expect((await cp.jobs()).map((j) => j.body)).toEqual([{ tenantId: "acme", revision: 2 }]);
  });

  it("malformed YAML names the body", async () => {
    const res = await refused(() => cp.request("POST", "/v1/apply", { token, raw: "kind: [unclosed", headers: { "content-type": "application/yaml" } }));
    expect(res.status).toBe(400);
    expect(((await res.json()) as { errors: { path: string }[] }).errors[0]?.path).toBe("(body)");
  });
});
