import { gzipSync } from "node:zlib";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GENERATED_KINDS, SNAPSHOT_TYPE, type SnapshotPayload } from "@meshplane/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalKeySigner } from "../../functions/signer/local-key";
import { createLogger } from "../../functions/shared/logger";
import { createWorker } from "../../functions/translation/batch";
import { startPoller } from "../../functions/translation/poller";
import { FIXTURES } from "../support/agents";
import { type ControlPlane, startControlPlane, trafficPolicy } from "../support/control-plane";
import { judgeCa } from "../istio/judge";
import { type LabAgent, addTrustDomainAlias, eventually, startLabAgent } from "./lab-agents";

/** One file of a Secret's data, decoded. */
function file(secret: { data?: Record<string, string> }, key: string): string {
  return Buffer.from(secret.data?.[key] as string, "base64").toString();
}

/**
 * End to end on real parts: two kube-apiservers (each with etcd, RBAC and the Istio/SMI CRDs), the
 * control plane on DynamoDB Local and the SQS emulator with its worker, and two agent processes
 * running under the chart's RBAC.
 */
let cp: ControlPlane;
let admin: string;
let east: LabAgent;
let west: LabAgent;
let poller: { stop: () => Promise<void> };

const MANAGED = "app.kubernetes.io%2Fmanaged-by%3Dmeshplane";

/** Every meshplane-managed object in a cluster, of every kind meshplane generates, as `plural ns/name` → resourceVersion. */
async function managed(agent: LabAgent): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const { group, versions, plural } of GENERATED_KINDS) {
    const res = await agent.cluster.request<{ items: { kind?: string; metadata: { namespace: string; name: string; resourceVersion: string } }[] }>(
      "GET",
      `/apis/${group}/${versions[0]}/${plural}?labelSelector=${MANAGED}`,
    );
    for (const item of res.body.items ?? []) out.set(`${plural} ${item.metadata.namespace}/${item.metadata.name}`, item.metadata.resourceVersion);
  }
  return out;
}

const vsTimeout = async (agent: LabAgent) => {
  const res = await agent.cluster.request<{ spec: { http: { timeout?: string }[] } }>(
    "GET",
    "/apis/networking.istio.io/v1/namespaces/bookinfo/virtualservices/reviews",
  );
  return res.status === 200 ? (res.body.spec.http.find((r) => r.timeout)?.timeout ?? "none") : undefined;
};

const reviewsPolicy = (timeout: string) =>
  trafficPolicy("reviews-timeout", {
    destinationSelector: [{ kubeServiceRefs: { services: [{ cluster: "cluster-east", namespace: "bookinfo", name: "reviews" }] } }],
    policy: { requestTimeout: timeout },
  });

beforeAll(async () => {
  cp = await startControlPlane();
  poller = startPoller({ sqs: cp.sqs, queueUrl: cp.queueUrl, handler: createWorker(cp.worker), log: createLogger({}, () => undefined), waitSeconds: 1 });
  admin = await cp.tenant("e2e");
  [east, west] = await Promise.all([
    startLabAgent(cp, admin, "cluster-east", join(FIXTURES, "istio-bookinfo.yaml")),
    startLabAgent(cp, admin, "cluster-west", join(FIXTURES, "istio-revision-eastwest.yaml")),
  ]);
  // A VirtualService someone made by hand: meshplane must never touch it.
  const handmade = await east.cluster.request("POST", "/apis/networking.istio.io/v1/namespaces/bookinfo/virtualservices", {
    apiVersion: "networking.istio.io/v1",
    kind: "VirtualService",
    metadata: { name: "handmade", namespace: "bookinfo" },
    spec: { hosts: ["ratings"], http: [{ route: [{ destination: { host: "ratings" } }] }] },
  });
  expect(handmade.status).toBe(201);
}, 1_800_000);

afterAll(async () => {
  const { writeFileSync } = await import("node:fs");
  if (east) writeFileSync(join(tmpdir(), "e2e-agent-cluster-east.log"), east.output());
  if (west) writeFileSync(join(tmpdir(), "e2e-agent-cluster-west.log"), west.output());
  await Promise.all([east?.stop(), west?.stop()]);
  await poller?.stop();
  await cp?.stop();
});

const handmadeVersion = async () =>
  (await east.cluster.request<{ metadata: { resourceVersion: string } }>("GET", "/apis/networking.istio.io/v1/namespaces/bookinfo/virtualservices/handmade"))
    .body.metadata.resourceVersion;

describe("two clusters, two agents, one control plane", () => {
  let handmade: string;

  it("agents register and report what they discover", async () => {
    handmade = await handmadeVersion();
    const meshes = await eventually("both meshes", async () => {
      const items = ((await (await cp.request("GET", "/v1/meshes", { token: admin })).json()) as { items: { metadata: { name: string } }[] }).items;
      return items.length === 2 ? items.map((m) => m.metadata.name) : undefined;
    });
    // Discovered lists page cluster by cluster (docs/api.md): east's mesh, then west's.
    expect(meshes).toEqual(["istiod-istio--system-cluster-east", "istiod--1--24-istio--system-cluster-west"]);
    const destinations = (
      (await (await cp.request("GET", "/v1/destinations?namespace=bookinfo", { token: admin })).json()) as { items: { metadata: { name: string } }[] }
    ).items.map((d) => d.metadata.name);
    expect(destinations).toContain("reviews-bookinfo-cluster-east");
    const clusters = ((await (await cp.request("GET", "/v1/clusters", { token: admin })).json()) as { items: { name: string; state: string }[] }).items;
    expect(clusters.map((c) => c.state)).toEqual(["registered", "registered"]);
  });

  it("policies become Istio objects in the right clusters, accepted by the apiservers' CRD validation", async () => {
    const documents = [
      {
        apiVersion: "meshplane.dev/v1",
        kind: "VirtualMesh",
        metadata: { name: "global" },
        spec: {
          meshes: [{ name: "istiod-istio--system-cluster-east" }, { name: "istiod--1--24-istio--system-cluster-west" }],
          mtlsConfig: { shared: { rootCertificateAuthority: { generated: {} } } },
          federation: { selectors: [{ destinationSelectors: [{ kubeServiceMatcher: { namespaces: ["payments"] } }] }], hostnameSuffix: "global" },
          globalAccessPolicy: "ENABLED",
        },
      },
      reviewsPolicy("5s"),
      {
        apiVersion: "meshplane.dev/v1",
        kind: "AccessPolicy",
        metadata: { name: "bookinfo-reads" },
        spec: {
          sourceSelector: [{ kubeIdentityMatcher: { namespaces: ["bookinfo"] } }],
          destinationSelector: [{ kubeServiceMatcher: { namespaces: ["bookinfo"], labels: { app: "reviews" } } }],
          allowedMethods: ["GET"],
        },
      },
    ];
    expect((await cp.request("POST", "/v1/apply", { token: admin, body: { documents } })).status).toBe(200);
    expect(await eventually("the VirtualService in cluster-east", () => vsTimeout(east))).toBe("5s");
    // The two meshes have different trust domains: the status names the exact setting, and the
    // user sets it (as istioctl would) in each cluster; discovery reports it and the mesh is accepted.
    const refused = await eventually("the trust-domain error", async () => {
      const status = (
        (await (await cp.request("GET", "/v1/virtualmeshes/global", { token: admin })).json()) as { status: { meshes?: Record<string, { errors?: string[] }> } }
      ).status;
      return status.meshes?.["istiod-istio--system-cluster-east"]?.errors?.find((e) => e.includes("trustDomainAliases"));
    });
    expect(refused).toContain("add west.example.com to meshConfig.trustDomainAliases");
    await addTrustDomainAlias(east, "istio", "west.example.com");
    await addTrustDomainAlias(west, "istio-1-24", "cluster.local");
    // Discovery reports the aliases and the VirtualMesh is translated again; until then its status
    // (and the clusters' applied generations) may still be the refusal's, so wait for the change itself.
    await eventually("VirtualMesh global accepted once the aliases are discovered", async () => {
      const status = ((await (await cp.request("GET", "/v1/virtualmeshes/global", { token: admin })).json()) as { status: { state: string } }).status;
      return status.state === "ACCEPTED" ? true : undefined;
    });
    const cacerts = await eventually(
      "cacerts written in both clusters",
      async () => {
        const got = await Promise.all(
          [east, west].map(
            async (a) => (await a.cluster.request("GET", "/api/v1/namespaces/istio-system/secrets/cacerts")).body as { data?: Record<string, string> },
          ),
        );
        return got.every((s) => s.data?.["ca-cert.pem"]) ? got : undefined;
      },
      60_000,
    );
    const roots = cacerts.map((s) => Buffer.from(s.data?.["root-cert.pem"] as string, "base64").toString());
    expect(roots[0]).toBe(roots[1]);
    expect(Object.keys(cacerts[0]?.data ?? {}).sort()).toEqual(["ca-cert.pem", "ca-key.pem", "cert-chain.pem", "root-cert.pem"]);
    // Istio's own CA loads what the agents wrote, issues a workload certificate in each mesh, and each
    // verifies against the other mesh's trust bundle.
    const judged = judgeCa(
      cacerts.map((s, i) => ({
        name: i === 0 ? "east" : "west",
        caCert: file(s, "ca-cert.pem"),
        caKey: file(s, "ca-key.pem"),
        certChain: file(s, "cert-chain.pem"),
        rootCert: file(s, "root-cert.pem"),
        workloadIdentity: i === 0 ? "spiffe://cluster.local/ns/bookinfo/sa/bookinfo-productpage" : "spiffe://west.example.com/ns/payments/sa/payments",
      })),
    );
    expect(Object.values(judged.meshes).map((m) => m.error)).toEqual([undefined, undefined]);
    expect(judged.verify.map((v) => [v.workload, v.trustBundle, v.ok])).toEqual([
      ["east", "east", true],
      ["east", "west", true],
      ["west", "east", true],
      ["west", "west", true],
    ]);
    const statuses = await eventually("every policy applied in its clusters", async () => {
      const out: Record<string, { state: string; clusters?: Record<string, { applied: boolean; errors?: string[] }> }> = {};
      for (const [plural, name] of [
        ["virtualmeshes", "global"],
        ["trafficpolicies", "reviews-timeout"],
        ["accesspolicies", "bookinfo-reads"],
      ]) {
        out[name as string] = ((await (await cp.request("GET", `/v1/${plural}/${name}`, { token: admin })).json()) as { status: never }).status;
      }
      return Object.values(out).every((s) => s.clusters && Object.values(s.clusters).every((c) => c.applied)) ? out : undefined;
    });
    for (const [name, s] of Object.entries(statuses)) expect(s.state, `${name}: ${JSON.stringify(s)}`).toBe("ACCEPTED");
    const inEast = [...(await managed(east)).keys()];
    const inWest = [...(await managed(west)).keys()];
    expect(inEast).toEqual(
      expect.arrayContaining(
        [
          "virtualservices bookinfo/reviews",
          "destinationrules bookinfo/reviews",
          "authorizationpolicies bookinfo/reviews",
          "authorizationpolicies istio-system/global-access-control.workloads",
          "peerauthentications istio-system/default",
        ].map((k) => expect.stringContaining(k.split(" ")[0] as string)),
      ),
    );
    expect(inEast.some((k) => k.startsWith("serviceentries "))).toBe(true);
    expect(inWest.some((k) => k.startsWith("gateways "))).toBe(true);
    expect(inWest.some((k) => k.startsWith("virtualservices bookinfo/"))).toBe(false);
    expect(await handmadeVersion()).toBe(handmade);
  });

  it("a changed policy is updated, a deleted one pruned, drift corrected, and the hand-made object never touched", async () => {
    await cp.request("PUT", "/v1/trafficpolicies/reviews-timeout", { token: admin, body: reviewsPolicy("7s") });
    expect(await eventually("the new timeout", async () => ((await vsTimeout(east)) === "7s" ? "7s" : undefined))).toBe("7s");

    const dr = "/apis/networking.istio.io/v1/namespaces/bookinfo/destinationrules/reviews";
    expect((await east.cluster.request("DELETE", dr)).status).toBe(200);
    await eventually("the deleted DestinationRule restored", async () => ((await east.cluster.request("GET", dr)).status === 200 ? true : undefined), 30_000);

    await cp.request("DELETE", "/v1/trafficpolicies/reviews-timeout", { token: admin });
    await eventually("the VirtualService pruned", async () =>
      (await east.cluster.request("GET", "/apis/networking.istio.io/v1/namespaces/bookinfo/virtualservices/reviews")).status === 404 ? true : undefined,
    );
    expect(await handmadeVersion()).toBe(handmade);
    expect(await east.metrics()).toMatch(/meshplane_agent_drift_corrections_total [1-9]/);
  });
});

const leads = async (p: { metrics: () => Promise<string> }) => /^meshplane_agent_leader 1$/m.test(await p.metrics());

describe("two replicas", () => {
  it("only the leader applies; when it stops, the other takes over", async () => {
    const second = west.replica("cluster-west-agent-1");
    await eventually("a leader and a follower", async () => ((await leads(west)) && !(await leads(second)) ? true : undefined), 30_000);
    expect(await second.metrics()).toMatch(/^meshplane_agent_applied_generation 0$/m);
    // Both replicas are ready: a not-ready follower would block a node drain under the chart's PDB.
    for (const replica of [west, second]) expect((await fetch(`http://127.0.0.1:${await replica.healthPort()}/readyz`)).status).toBe(200);
    west.process.kill("SIGTERM");
    await new Promise((r) => west.process.once("exit", r));
    await eventually(
      "the second replica to lead and apply",
      async () => ((await leads(second)) && /^meshplane_agent_applied_generation [1-9]/m.test(await second.metrics()) ? true : undefined),
      60_000,
    );
  });
});

/** Publishes a snapshot head the agent will fetch next, as a misbehaving control plane would. */
async function serve(cluster: string, jws: string, generation: number, hash: string): Promise<void> {
  const head = (await cp.store.snapshots.head("e2e", cluster, true))?.snapshot;
  await cp.store.snapshots.write("e2e", cluster, head, { generation, hash, signedAt: new Date().toISOString(), exp: 2e9 }, gzipSync(jws));
}

async function current(cluster: string): Promise<{ jws: string; payload: SnapshotPayload; generation: number }> {
  const head = (await cp.store.snapshots.head("e2e", cluster, true))?.snapshot;
  const { gunzipSync } = await import("node:zlib");
  const jws = gunzipSync(await cp.store.snapshots.body("e2e", cluster, head as never)).toString();
  return {
    jws,
    payload: JSON.parse(Buffer.from(jws.split(".")[1] as string, "base64url").toString()) as SnapshotPayload,
    generation: head?.generation as number,
  };
}

const resign = async (signer: LocalKeySigner, payload: SnapshotPayload) => signer.sign(Buffer.from(JSON.stringify(payload)), SNAPSHOT_TYPE);

describe("fail static", () => {
  it.each<[string, string, (c: Awaited<ReturnType<typeof current>>) => Promise<[string, number]>]>([
    [
      "a tampered snapshot",
      "bad-signature",
      async (c) => {
        const [h, , s] = c.jws.split(".");
        const forged = { ...c.payload, generation: c.generation + 1, objects: [] };
        return [`${h}.${Buffer.from(JSON.stringify(forged)).toString("base64url")}.${s}`, c.generation + 1];
      },
    ],
    [
      "a snapshot signed by an unknown key",
      "unknown-key",
      async (c) => {
        const rogue = LocalKeySigner.open(join(mkdtempSync(join(tmpdir(), "rogue-")), "k.json"));
        return [await resign(rogue, { ...c.payload, generation: c.generation + 1, objects: [] }), c.generation + 1];
      },
    ],
    ["an older generation replayed", "rollback", async (c) => [await resign(cp.signer, { ...c.payload, generation: 1, objects: [] }), c.generation + 1]],
    [
      "an expired snapshot",
      "expired",
      async (c) => [
        await resign(cp.signer, { ...c.payload, generation: c.generation + 1, exp: Math.floor(Date.now() / 1000) - 3600, objects: [] }),
        c.generation + 1,
      ],
    ],
  ])("%s: the cluster stays exactly as it was and the agent says why", async (_what, reason, make) => {
    const before = await managed(east);
    expect(before.size).toBeGreaterThan(0);
    const c = await current("cluster-east");
    const [jws, generation] = await make(c);
    await serve("cluster-east", jws, generation, c.payload.hash);
    await eventually(`the agent to reject (${reason})`, async () => ((await east.metrics()).includes(`reason="${reason}"`) ? true : undefined));
    await eventually("the agent's report", async () => {
      const v = (await (await cp.request("GET", "/v1/clusters/cluster-east/snapshot", { token: admin })).json()) as { agentError: string | null };
      return v.agentError?.includes(reason) ? true : undefined;
    });
    expect(await managed(east)).toEqual(before);
    // Put the genuine snapshot back for the next case.
    await serve("cluster-east", await resign(cp.signer, { ...c.payload, generation: generation + 1 }), generation + 1, c.payload.hash);
    await eventually("the agent back in sync", async () =>
      (await east.metrics()).includes(`meshplane_agent_applied_generation ${generation + 1}`) ? true : undefined,
    );
  });

  it("with the control plane gone the cluster stays as it was", async () => {
    const before = await managed(east);
    await poller.stop();
    await cp.stop();
    await eventually("the agent to notice", async () => ((await east.metrics()).includes('reason="control-plane"') ? true : undefined));
    await new Promise((r) => setTimeout(r, 2000));
    expect(await managed(east)).toEqual(before);
  });
});
