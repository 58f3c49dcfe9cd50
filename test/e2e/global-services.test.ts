import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../functions/shared/logger";
import { createWorker } from "../../functions/translation/batch";
import { startPoller } from "../../functions/translation/poller";
import { FIXTURES } from "../support/agents";
import { type ControlPlane, startControlPlane } from "../support/control-plane";
import { type LabAgent, eventually, startLabAgent } from "./lab-agents";

/**
 * Global services end to end (docs/ambient.md#ambient-multicluster, docs/agent.md#waypoint-bindings):
 * two lab kube-apiservers seeded with the ambient fixture on Istio 1.29, each cluster on its own
 * network, their agents under the chart's RBAC and admission policy, and the control plane on
 * DynamoDB Local and the SQS emulator. A VirtualMesh federating web the ambient way makes each agent
 * create the east-west gateway and label web `istio.io/global: "true"` under its own field manager;
 * a value set by hand is kept and reported; the VirtualMesh deleted, the label is released.
 */
let cp: ControlPlane;
let admin: string;
let agents: LabAgent[] = [];
let poller: { stop: () => Promise<void> };

const CLUSTERS = ["cluster-global-1", "cluster-global-2"];
const MESHES = CLUSTERS.map((c) => `istiod-istio--system-${c}`);
const GLOBAL = "istio.io/global";
const MANAGER = "meshplane-global-service";
const WEB = "/api/v1/namespaces/shop/services/web";
const EAST_WEST = "/apis/gateway.networking.k8s.io/v1/namespaces/istio-system/gateways/istio-eastwestgateway";
const MERGE = "application/merge-patch+json";

interface Service {
  metadata: { labels?: Record<string, string>; managedFields?: { manager: string; operation: string; fieldsV1: unknown }[] };
  spec: Record<string, unknown>;
}
interface Status {
  state: string;
  meshes?: Record<string, { state: string; errors?: string[] }>;
  clusters?: Record<string, { applied: boolean; errors?: string[] }>;
}

const virtualMesh = {
  apiVersion: "meshplane.dev/v1",
  kind: "VirtualMesh",
  metadata: { name: "shop-federation" },
  spec: {
    meshes: MESHES.map((name) => ({ name })),
    mtlsConfig: { shared: { rootCertificateAuthority: { generated: {} } } },
    federation: { selectors: [{ destinationSelectors: [{ kubeServiceMatcher: { namespaces: ["shop"], labels: { app: "web" } } }] }] },
  },
};

const web = async (agent: LabAgent) => (await agent.cluster.request<Service>("GET", WEB)).body;
const status = async () => ((await (await cp.request("GET", "/v1/virtualmeshes/shop-federation", { token: admin })).json()) as { status: Status }).status;
/** A hand edit of web's labels, as `kubectl label` makes it. */
const label = (agent: LabAgent, labels: Record<string, string | null>) =>
  agent.cluster.request("PATCH", `${WEB}?fieldManager=kubectl-label`, { metadata: { labels } }, undefined, { contentType: MERGE });

beforeAll(async () => {
  // The ambient fixture on Istio 1.29 (ambient multicluster's floor), each cluster on a network of its own.
  const dir = mkdtempSync(join(tmpdir(), "global-services-"));
  const text = readFileSync(join(FIXTURES, "istio-ambient.yaml"), "utf8");
  const fixtures = CLUSTERS.map((cluster) => {
    const out = text.replaceAll(":1.25.2", ":1.29.1").replace("topology.istio.io/network: network-ambient", `topology.istio.io/network: network-${cluster}`);
    if (!out.includes("pilot:1.29.1") || !out.includes(`network-${cluster}`))
      throw new Error("the ambient fixture no longer names Istio 1.25.2 or its network");
    const file = join(dir, `${cluster}.yaml`);
    writeFileSync(file, out);
    return file;
  });
  cp = await startControlPlane();
  poller = startPoller({ sqs: cp.sqs, queueUrl: cp.queueUrl, handler: createWorker(cp.worker), log: createLogger({}, () => undefined), waitSeconds: 1 });
  admin = await cp.tenant("e2e-global-services");
  agents = await Promise.all(CLUSTERS.map((cluster, i) => startLabAgent(cp, admin, cluster, fixtures[i] as string)));
}, 1_800_000);

afterAll(async () => {
  await poller?.stop();
  await Promise.all(agents.map((a) => a.stop()));
  await cp?.stop();
});

describe("a VirtualMesh federating web the ambient way", () => {
  it("makes each agent create the east-west gateway and mark web global with that label alone, under its own manager", async () => {
    await eventually(
      "both ambient meshes on Istio 1.29 discovered",
      async () => {
        const items = ((await (await cp.request("GET", "/v1/meshes", { token: admin })).json()) as { items: { spec: { version?: string } }[] }).items;
        return items.length === 2 && items.every((m) => m.spec.version === "1.29.1") ? true : undefined;
      },
      90_000,
    );
    const originals = await Promise.all(agents.map(web));
    expect((await cp.request("POST", "/v1/apply", { token: admin, body: { documents: [virtualMesh] } })).status).toBe(200);
    for (const [i, agent] of agents.entries()) {
      const marked = await eventually(`web global in ${agent.name}`, async () => {
        const s = await web(agent);
        return s.metadata.labels?.[GLOBAL] === "true" ? s : undefined;
      });
      expect(marked.metadata.labels).toEqual({ ...originals[i]?.metadata.labels, [GLOBAL]: "true" });
      expect(marked.spec).toEqual(originals[i]?.spec);
      expect(marked.metadata.managedFields?.filter((f) => f.manager === MANAGER)).toEqual([
        expect.objectContaining({ operation: "Apply", fieldsV1: { "f:metadata": { "f:labels": { [`f:${GLOBAL}`]: {} } } } }),
      ]);
      const gateway = (
        await agent.cluster.request<{ metadata: { labels: Record<string, string>; annotations: Record<string, string> }; spec: unknown }>("GET", EAST_WEST)
      ).body;
      expect(gateway.metadata.annotations["meshplane.dev/global-services"]).toBe('["shop/web"]');
      expect(gateway.metadata.labels["topology.istio.io/network"]).toBe(`network-${agent.name}`);
    }
    const accepted = await eventually("the VirtualMesh applied in both clusters", async () => {
      const s = await status();
      return s.state === "ACCEPTED" && CLUSTERS.every((c) => s.clusters?.[c]?.applied && (s.clusters[c]?.errors ?? []).length === 0) ? s : undefined;
    });
    expect(Object.values(accepted.meshes ?? {}).map((m) => m.state)).toEqual(["ACCEPTED", "ACCEPTED"]);
  });

  it(`keeps a value set by hand, and says on the VirtualMesh how to let meshplane mark web global again`, async () => {
    const [, second] = agents as [LabAgent, LabAgent];
    expect((await label(second, { [GLOBAL]: "false" })).status).toBe(200);
    // The agent labels on each snapshot and each resync (10 s here): it meets the hand edit there.
    const failed = await eventually(
      "the conflict in the VirtualMesh's status",
      async () => {
        const s = await status();
        return s.state === "FAILED" && (s.clusters?.[second.name]?.errors ?? []).some((e) => e.includes(GLOBAL)) ? s : undefined;
      },
      45_000,
    );
    expect(failed.clusters?.[second.name]?.errors).toEqual([
      expect.stringMatching(
        /mark Service shop\/web global .*does not overwrite it: .*Istio keeps the Service local.*remove the label \(kubectl label service -n shop web istio\.io\/global-\) and meshplane marks the Service global again/,
      ),
    ]);
    expect(failed.clusters?.[CLUSTERS[0] as string]?.errors ?? []).toEqual([]);
    expect((await web(second)).metadata.labels?.[GLOBAL]).toBe("false");

    // As the status says: the label removed, meshplane marks web global again.
    expect((await label(second, { [GLOBAL]: null })).status).toBe(200);
    await eventually("web global again", async () => ((await web(second)).metadata.labels?.[GLOBAL] === "true" ? true : undefined), 45_000);
    await eventually("the VirtualMesh accepted again", async () => ((await status()).state === "ACCEPTED" ? true : undefined), 45_000);
  });

  it("releases the label when the federation ends, leaving the user's labels, and the hand-set value to its owner", async () => {
    const [first, second] = agents as [LabAgent, LabAgent];
    expect((await label(first, { team: "shop" })).status).toBe(200);
    expect((await label(second, { [GLOBAL]: "false" })).status).toBe(200);
    expect((await cp.request("DELETE", "/v1/virtualmeshes/shop-federation", { token: admin })).status).toBe(200);
    for (const agent of agents)
      await eventually(`the east-west gateway pruned in ${agent.name}`, async () =>
        (await agent.cluster.request("GET", EAST_WEST)).status === 404 ? true : undefined,
      );
    const released = await eventually("web released in the first cluster", async () => {
      const s = await web(first);
      return s.metadata.labels?.[GLOBAL] === undefined ? s : undefined;
    });
    expect(released.metadata.labels).toEqual({ app: "web", "istio.io/use-waypoint": "waypoint", team: "shop" });
    expect(released.metadata.managedFields?.some((f) => f.manager === MANAGER)).toBe(false);
    expect((await web(second)).metadata.labels).toEqual({ app: "web", "istio.io/use-waypoint": "waypoint", [GLOBAL]: "false" });
  });
});
