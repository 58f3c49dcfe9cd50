/**
 * `npm run lab`: a complete local world to try meshplane in — the control plane (DynamoDB Local, the
 * SQS emulator, the API and its worker, the metrics store, the web console) and two real Kubernetes API
 * servers seeded with a Bookinfo-like app on Istio, each with an agent running under the chart's RBAC.
 * With golden signals (traffic-lab.ts, traffic-story.ts): the traffic model's namespaces in both
 * clusters, a real Prometheus per cluster the model is written into live, the agents reading them,
 * and a policy change followed by an error burst that the API names as its impact. Ctrl-C stops everything.
 *
 * `npm run lab -- --bare`: the same clusters with no agent and nothing registered, for trying
 * `meshplane cluster register NAME --install` as a user would: helm installs the chart, and a stand-in
 * for the kubelet (which the lab does not have) runs the Deployment's pods as agent processes.
 *
 * `npm run lab -- --ambient`: the same Bookinfo on Istio's ambient data plane in both clusters
 * (ambient-lab.ts), a VirtualMesh over them and the policies of ambient-policies.yaml; it prints what
 * a user should look at (ambient-report.ts) before it waits.
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { benchPlane, labPlane } from "../bench/_harness";
import { parseArgs } from "node:util";
import { certificateInfo, fingerprintSha256, splitPemBundle, verifyChain } from "@meshplane/core";
import { AGENT_NS, type DeploymentRunner, type LabAgent, addTrustDomainAlias, eventually, runAgentDeployment } from "../e2e/lab-agents";
import { type LabCluster, serviceAccountIdentity, startCluster } from "./cluster";
import { seedCluster } from "../support/seed-cluster";
import { FIXTURES } from "../support/agents";
import { buildCli } from "../support/cli";
import { applyAmbientPolicies, settledStatuses, startAmbientLab } from "./ambient-lab";
import { ambientReport } from "./ambient-report";
import { startSqsLocal } from "../../functions/local/sqs-local";
import { startMetricsLocal } from "../../functions/local/metrics-local";
import { createLogger } from "../../functions/shared/logger";
import { type TrafficLab, startTrafficLab } from "./traffic-lab";
import { trafficStory } from "./traffic-story";
import { gitopsStory } from "./gitops-story";
import { LAB_CLUSTERS } from "./traffic-fixture";
import type { LiveTraffic } from "./live-traffic";

const args = parseArgs({ options: { "shared-trust": { type: "boolean" }, bare: { type: "boolean" }, ambient: { type: "boolean" } } }).values;
if (args.ambient && (args.bare || args["shared-trust"])) {
  console.error("npm run lab: --ambient starts its own agents and VirtualMesh; use it without --bare and --shared-trust");
  process.exit(2);
}
const ROOT = join(import.meta.dirname, "../..");
// The web console the control plane serves at / (rebuilt only when its sources changed), as `npm start` does.
execFileSync(process.execPath, [join(ROOT, "node_modules/tsx/dist/cli.mjs"), join(ROOT, "scripts/build-console.ts"), "--if-stale"], {
  cwd: ROOT,
  stdio: ["ignore", "ignore", "inherit"],
});
// The metrics store on an SQS/S3 emulator of its own, in memory: batches of what arrives within a second.
const metricsSqs = await startSqsLocal();
const metrics = await startMetricsLocal({
  endpoint: metricsSqs.endpoint,
  region: "us-east-1",
  suffix: "lab",
  log: createLogger({}, () => undefined),
  windowMs: 1000,
  compactEveryMs: 600_000,
});
const plane = await benchPlane({ worker: true, metrics: metrics.api, consoleDir: join(ROOT, "packages/console/dist") });
const admin: string = ((await (await plane.request("POST", "/v1/tenants", plane.operatorToken, { name: "lab" })).json()) as { adminToken: string }).adminToken;
const cp = labPlane(plane);
const agents: LabAgent[] = [];
const bare: { cluster: LabCluster; kubelet: DeploymentRunner }[] = [];
let trafficLab: TrafficLab | undefined;
let traffic: LiveTraffic | undefined;
const stop = async () => {
  await traffic?.stop();
  await Promise.all([...agents.map((a) => a.stop()), ...bare.map(async (b) => (await b.kubelet.stop(), await b.cluster.stop()))]);
  await Promise.all(Object.values(trafficLab?.prometheus ?? {}).map((p) => p.stop()));
  await plane.stop();
  await metrics.stop();
  await metricsSqs.stop();
  process.exit(0);
};
process.once("SIGINT", () => void stop());
process.once("SIGTERM", () => void stop());

/** A seeded cluster whose agent Deployment, once helm creates it, runs as processes under its ServiceAccount. */
async function bareCluster(name: string, fixture: string): Promise<void> {
  const token = `agent-${name}-${Math.random().toString(36).slice(2)}`;
  const cluster = await startCluster({ name, tokens: [{ token, ...serviceAccountIdentity(AGENT_NS, "meshplane-agent") }] });
  await seedCluster(cluster, join(FIXTURES, fixture));
  bare.push({ cluster, kubelet: runAgentDeployment(cluster, token) });
}

if (args.bare) {
  await bareCluster("cluster-east", "istio-bookinfo.yaml");
  await bareCluster("cluster-west", "istio-revision-eastwest.yaml");
  const [east, west] = await Promise.all(bare.map((b) => b.cluster.writeKubeconfig()));
  console.log(`meshplane lab is up, bare: two clusters, no agents yet
  control plane    ${plane.url}   (tenant "lab", admin token: ${admin})
  cluster-east     kubeconfig: ${east}
  cluster-west     kubeconfig: ${west}

Try (from the repository; \`npm run cli:build\` first):
  alias meshplane="node $PWD/packages/cli/dist/meshplane.mjs"; export MESHPLANE_HELM=$(bash scripts/helm.sh)
  echo ${admin} | meshplane login --url ${plane.url} --token-stdin --name lab
  meshplane cluster register cluster-east --install --kubeconfig ${east} --values test/lab/agent-values.yaml
  meshplane cluster register cluster-west --install --kubeconfig ${west} --values test/lab/agent-values.yaml
  meshplane get meshes; meshplane cluster list; meshplane check
Ctrl-C stops everything.`);
  await new Promise(() => undefined);
}

if (args.ambient) agents.push(...(await startAmbientLab(cp, admin)));
else {
  // The default lab's Bookinfo and payments, with the traffic model's namespaces and a Prometheus per cluster.
  trafficLab = await startTrafficLab(cp, admin, { authoring: true });
  agents.push(trafficLab.agents["cluster-1"], trafficLab.agents["cluster-2"]);
}

console.log(`meshplane lab is up
  control plane    ${plane.url}   (tenant "lab", admin token: ${admin}; the console at ${plane.url}/)
  operator token   ${plane.operatorToken}`);
for (const a of agents) {
  console.log(
    `  ${a.name.padEnd(16)} ${a.cluster.url}   kubeconfig: ${await a.cluster.writeKubeconfig()}   agent metrics: http://127.0.0.1:${await a.healthPort()}/metrics`,
  );
}
if (args.ambient) {
  // The meshplane command, bundled once for this lab, against its control plane.
  const cli = buildCli();
  const env = { MESHPLANE_URL: plane.url, MESHPLANE_TOKEN: admin };
  const resources = await settledStatuses(cp, admin, await applyAmbientPolicies(cp, admin));
  console.log(`\nApplied test/lab/ambient-policies.yaml; what to look at:\n\n${await ambientReport(cli, env, agents, resources)}`);
  console.log(`
Try:
  alias meshplane="node ${cli.bin}"; export MESHPLANE_URL=${plane.url} MESHPLANE_TOKEN=${admin}
  meshplane describe dest reviews-bookinfo-cluster-east; meshplane describe wl payments--api-payments-cluster-west-deployment
  KUBECONFIG=<cluster-east kubeconfig above> kubectl get httproutes,authorizationpolicies -A
Ctrl-C stops everything.`);
  await new Promise(() => undefined);
}

console.log(`
Try:
  export MP=${plane.url} TOKEN=${admin}
  curl -s $MP/v1/destinations -H "Authorization: Bearer $TOKEN"
  curl -s -X POST $MP/v1/trafficpolicies -H "Authorization: Bearer $TOKEN" -H 'content-type: application/json' -d '{"apiVersion":"meshplane.dev/v1","kind":"TrafficPolicy","metadata":{"name":"reviews-timeout"},"spec":{"destinationSelector":[{"kubeServiceRefs":{"services":[{"cluster":"cluster-east","namespace":"bookinfo","name":"reviews"}]}}],"policy":{"requestTimeout":"5s"}}}'
  KUBECONFIG=<cluster-east kubeconfig above> kubectl get virtualservices -A     (or curl the apiserver with the kubeconfig's token)
  alias meshplane="node ${buildCli().bin}"; export MESHPLANE_URL=${plane.url} MESHPLANE_TOKEN=${admin}
Ctrl-C stops everything.`);
if (trafficLab) {
  // Policies from Git: kubectl apply into cluster-east, both clusters configured, Ready, then deleted everywhere.
  await gitopsStory({
    cp,
    admin,
    author: trafficLab.agents["cluster-1"],
    other: trafficLab.agents["cluster-2"],
    namespace: "shop",
    services: [
      { cluster: LAB_CLUSTERS["cluster-1"], namespace: "shop", name: "frontend" },
      // ledger, behind its waypoint: the ambient callers of cluster-west's mesh reach it through one (docs/ambient.md).
      { cluster: LAB_CLUSTERS["cluster-2"], namespace: "bank", name: "ledger" },
    ],
    say: (text) => console.log(text),
  }).catch((error: unknown) => console.error(`policies from Git: ${(error as Error).message}`));
  console.log(`  Try it yourself: KUBECONFIG=<cluster-east kubeconfig above> kubectl apply -f <a TrafficPolicy in namespace shop>,
  then kubectl get trafficpolicies -n shop (READY, REASON) and meshplane get tp (SOURCE); see docs/gitops.md#try-it`);
  const story = await trafficStory(cp, admin, trafficLab, (text) => console.log(text));
  traffic = story.traffic;
  story.done.catch((error: unknown) => console.error(`golden signals: ${(error as Error).message}`));
}

/**
 * `npm run lab -- --shared-trust`: a two-cluster VirtualMesh with a generated root, federation and
 * distinct trust domains. The status says which meshConfig setting each mesh needs; the lab then
 * makes that change as a user would, and shows the cacerts both agents wrote under one root.
 */
async function sharedTrust(east: LabAgent, west: LabAgent): Promise<void> {
  const vm = {
    apiVersion: "meshplane.dev/v1",
    kind: "VirtualMesh",
    metadata: { name: "lab-trust" },
    spec: {
      meshes: [{ name: "istiod-istio--system-cluster-east" }, { name: "istiod--1--24-istio--system-cluster-west" }],
      mtlsConfig: {
        shared: { rootCertificateAuthority: { generated: { keyAlgorithm: "ECDSA_P256" } }, intermediateCertOptions: { ttlDays: 30, rotateBeforeDays: 7 } },
      },
      federation: { selectors: [{}] },
    },
  };
  await cp.request("POST", "/v1/virtualmeshes", { token: admin, body: vm });
  const status = async () =>
    (
      (await (await cp.request("GET", "/v1/virtualmeshes/lab-trust", { token: admin })).json()) as {
        status: { state: string; meshes?: Record<string, { state: string; errors?: string[]; trust?: { state: string } }> };
      }
    ).status;
  const refused = await eventually("the VirtualMesh's status", async () =>
    (await status()).meshes?.["istiod-istio--system-cluster-east"]?.errors?.length ? status() : undefined,
  );
  console.log("\nVirtualMesh lab-trust, first status:");
  for (const [mesh, m] of Object.entries(refused.meshes ?? {}))
    console.log(`  ${mesh}: ${m.state}, trust ${m.trust?.state}\n    ${(m.errors ?? []).join("\n    ")}`);
  console.log("\nAdding the trust-domain aliases the status asks for (as istioctl would) …");
  await addTrustDomainAlias(east, "istio", "west.example.com");
  await addTrustDomainAlias(west, "istio-1-24", "cluster.local");
  const accepted = await eventually("VirtualMesh lab-trust ACCEPTED", async () => ((await status()).state === "ACCEPTED" ? status() : undefined), 120_000);
  console.log(
    `VirtualMesh lab-trust: ${accepted.state} (${Object.entries(accepted.meshes ?? {})
      .map(([m, s]) => `${m}: trust ${s.trust?.state}`)
      .join(", ")})`,
  );
  for (const agent of [east, west]) {
    const secret = (await agent.cluster.request("GET", "/api/v1/namespaces/istio-system/secrets/cacerts")).body as { data: Record<string, string> };
    const file = (key: string) => Buffer.from(secret.data[key] as string, "base64").toString();
    const chain = splitPemBundle(file("cert-chain.pem"));
    const roots = splitPemBundle(file("root-cert.pem"));
    const ok = await verifyChain(globalThis.crypto, { leafPem: file("ca-cert.pem"), intermediatePems: chain.slice(1, -1), rootPems: roots, now: new Date() });
    const info = certificateInfo(file("ca-cert.pem"));
    console.log(
      `  ${agent.name}: cacerts intermediate ${info.uriSans.join(",")} until ${info.notAfter.toISOString()}, root ${roots.map(fingerprintSha256).join(", ")}, chains to it: ${ok}`,
    );
  }
}

if (args["shared-trust"]) await sharedTrust(agents[0] as LabAgent, agents[1] as LabAgent);
