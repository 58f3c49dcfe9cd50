/**
 * The `meshplane` command against real clusters: two kube-apiservers seeded with Istio meshes, the
 * control plane on DynamoDB Local and the SQS emulator with its worker. `cluster register --install`
 * runs the real helm with the chart shipped in the CLI bundle; the lab has no kubelet, so
 * `runAgentDeployment` runs the pods of the Deployment helm created (the agent bundle, with the
 * template's args and mounted files, under its ServiceAccount). Then `apply --wait` gates on what
 * those agents really applied.
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../functions/shared/logger";
import { createWorker } from "../../functions/translation/batch";
import { startPoller } from "../../functions/translation/poller";
import { type LabCluster, serviceAccountIdentity, startCluster } from "../lab/cluster";
import { FIXTURES } from "../support/agents";
import { type Cli, buildCli } from "../support/cli";
import { type ControlPlane, startControlPlane } from "../support/control-plane";
import { seedCluster } from "../support/seed-cluster";
import { AGENT_NS, type DeploymentRunner, addTrustDomainAlias, eventually, runAgentDeployment } from "./lab-agents";

const ROOT = resolve(import.meta.dirname, "../..");
const ESC = "\x1b";

interface Site {
  name: string;
  cluster: LabCluster;
  kubeconfig: string;
  kubelet: DeploymentRunner;
}

let cp: ControlPlane;
let poller: { stop: () => Promise<void> };
let cli: Cli;
let helm: string;
let agentValues: string;
const sites: Site[] = [];

async function site(name: string, fixture: string): Promise<Site> {
  const token = `agent-${name}-${Math.random().toString(36).slice(2)}`;
  const cluster = await startCluster({ name, tokens: [{ token, ...serviceAccountIdentity(AGENT_NS, "meshplane-agent") }] });
  await seedCluster(cluster, join(FIXTURES, fixture));
  return { name, cluster, kubeconfig: await cluster.writeKubeconfig(), kubelet: runAgentDeployment(cluster, token) };
}

const install = (s: Site, extra: string[] = []) =>
  cli.run(["cluster", "register", s.name, "--install", "--kubeconfig", s.kubeconfig, "--helm", helm, "--values", agentValues, "--timeout", "120", ...extra]);
/** The TrafficPolicy a user writes for reviews in cluster-east. */
const reviewsTimeout = (timeout: string) => `apiVersion: meshplane.dev/v1
kind: TrafficPolicy
metadata: {name: reviews-timeout, labels: {team: bookinfo}}
spec:
  destinationSelector: [{kubeServiceRefs: {services: [{cluster: cluster-east, namespace: bookinfo, name: reviews}]}}]
  policy: {requestTimeout: ${timeout}, retries: {attempts: 3, perTryTimeout: 2s, retryOn: "5xx,reset"}}
`;
const east = () => sites[0] as Site;
const west = () => sites[1] as Site;

beforeAll(async () => {
  helm = execFileSync("bash", [join(ROOT, "scripts/helm.sh")], { encoding: "utf8" }).trim();
  cp = await startControlPlane();
  poller = startPoller({ sqs: cp.sqs, queueUrl: cp.queueUrl, handler: createWorker(cp.worker), log: createLogger({}, () => undefined), waitSeconds: 1 });
  const admin = await cp.tenant("cli-e2e");
  cli = buildCli();
  // What an operator would put in a values file for the lab: one replica, fast polls, both istiods.
  agentValues = join(ROOT, "test/lab/agent-values.yaml");
  sites.push(...(await Promise.all([site("cluster-east", "istio-bookinfo.yaml"), site("cluster-west", "istio-revision-eastwest.yaml")])));
  const login = await cli.run(["login", "--url", cp.url, "--token-stdin"], { stdin: admin });
  expect(login.code, login.stderr).toBe(0);
}, 1_800_000);

afterAll(async () => {
  for (const s of sites) {
    const agent = s.kubelet.current();
    if (agent) writeFileSync(join(cli?.dir ?? "/tmp", `agent-${s.name}.log`), agent.output());
  }
  await Promise.all(
    sites.map(async (s) => {
      await s.kubelet.stop();
      await s.cluster.stop();
    }),
  );
  await poller?.stop();
  await cp?.stop();
});

describe("meshplane against two lab clusters", () => {
  it("cluster register --install: helm installs the shipped chart, then it waits for the agent to register and report discovery", async () => {
    const [a, b] = await Promise.all([install(east()), install(west())]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    expect(a.stderr).toContain("cluster cluster-east registered");
    expect(a.stderr).toContain("✔ helm: release meshplane-agent installed");
    expect(a.stderr).toContain("✔ agent registered");
    expect(a.stderr).toContain("✔ discovery reported: 1 mesh(es): istiod-istio--system-cluster-east");
    expect(b.stderr).toContain("✔ discovery reported: 1 mesh(es): istiod--1--24-istio--system-cluster-west");
    // The bootstrap token reached the cluster only through helm's values: never on a command line or in the output.
    const secret = (await east().cluster.request<{ data: { token: string } }>("GET", `/api/v1/namespaces/${AGENT_NS}/secrets/meshplane-agent-bootstrap`)).body;
    const bootstrapToken = Buffer.from(secret.data.token, "base64").toString();
    expect(bootstrapToken).toMatch(/^mpb_/);
    expect(a.stdout + a.stderr).not.toContain(bootstrapToken);
    // A real helm release, and the agent ran as its Deployment says.
    const release = await east().cluster.request("GET", `/api/v1/namespaces/${AGENT_NS}/secrets/sh.helm.release.v1.meshplane-agent.v1`);
    expect(release.status).toBe(200);
    expect(east().kubelet.starts()).toBe(1);
    const list = await cli.run(["cluster", "list", "-o", "json"]);
    const clusters = (JSON.parse(list.stdout) as { items: { name: string; state: string }[] }).items;
    expect(clusters.map((c) => `${c.name} ${c.state}`)).toEqual(["cluster-east registered", "cluster-west registered"]);
  });

  it("a failed helm run leaves nothing behind: no release, and the cluster is deregistered again", async () => {
    const res = await cli.run([
      "cluster",
      "register",
      "cluster-nowhere",
      "--install",
      "--kubeconfig",
      east().kubeconfig,
      "--kube-context",
      "no-such-context",
      "--helm",
      helm,
      "--timeout",
      "30",
    ]);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain("helm failed");
    expect(res.stderr).toContain("no-such-context");
    expect(res.stderr).toContain("nothing was installed");
    expect(res.stderr).toContain("cluster cluster-nowhere was deregistered again");
    const list = (JSON.parse((await cli.run(["cluster", "list", "-o", "json"])).stdout) as { items: { name: string }[] }).items;
    expect(list.map((c) => c.name)).not.toContain("cluster-nowhere");
    // Checked before anything is registered: no helm at all.
    const missing = await cli.run(["cluster", "register", "cluster-nohelm", "--install", "--helm", join(cli.dir, "no-helm")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("helm not found");
    expect((await cli.run(["get", "clusters", "-o", "name"])).stdout).not.toContain("cluster-nohelm");
  });

  it("apply --wait fails naming the mesh and the fix while trust cannot work, and passes once the user made the fix", async () => {
    const vm = join(cli.dir, "virtualmesh.yaml");
    writeFileSync(
      vm,
      `apiVersion: meshplane.dev/v1
kind: VirtualMesh
metadata: {name: global}
spec:
  meshes: [{name: istiod-istio--system-cluster-east}, {name: istiod--1--24-istio--system-cluster-west}]
  mtlsConfig: {shared: {rootCertificateAuthority: {generated: {}}}}
  federation: {selectors: [{}], hostnameSuffix: global}
  globalAccessPolicy: ENABLED
`,
    );
    const refused = await cli.run(["apply", "-f", vm, "--wait", "--timeout", "120"]);
    expect(refused.code, refused.stderr).toBe(1);
    expect(refused.stderr).toContain("virtualmeshes/global: INVALID");
    expect(refused.stderr).toContain("add west.example.com to meshConfig.trustDomainAliases");
    await addTrustDomainAlias(east(), "istio", "west.example.com");
    await addTrustDomainAlias(west(), "istio-1-24", "cluster.local");
    await eventually(
      "VirtualMesh global ACCEPTED",
      async () => {
        const got = JSON.parse((await cli.run(["get", "vm", "global", "-o", "json"])).stdout) as { status: { state: string } };
        return got.status.state === "ACCEPTED" ? true : undefined;
      },
      120_000,
    );

    const policies = join(cli.dir, "policies.yaml");
    writeFileSync(
      policies,
      `${reviewsTimeout("5s")}---
apiVersion: meshplane.dev/v1
kind: AccessPolicy
metadata: {name: bookinfo-reads, labels: {team: bookinfo}}
spec:
  sourceSelector: [{kubeIdentityMatcher: {namespaces: [bookinfo]}}]
  destinationSelector: [{kubeServiceMatcher: {namespaces: [bookinfo], labels: {app: reviews}}}]
  allowedMethods: [GET]
`,
    );
    const applied = await cli.run(["apply", "-f", policies, "--wait", "--timeout", "120"]);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stderr).toMatch(/✔ trafficpolicies\/reviews-timeout: ACCEPTED, applied by \d cluster\(s\)/);
    expect(applied.stderr).toMatch(/✔ accesspolicies\/bookinfo-reads: ACCEPTED, applied by \d cluster\(s\)/);
    // Applied means in the cluster: the agent wrote the VirtualService with the timeout.
    const vs = await east().cluster.request<{ spec: { http: { timeout?: string }[] } }>(
      "GET",
      "/apis/networking.istio.io/v1/namespaces/bookinfo/virtualservices/reviews",
    );
    expect(vs.body.spec.http.some((r) => r.timeout === "5s")).toBe(true);
  });

  it("on a terminal, --wait redraws its progress in place, in colour, and ends with the cursor shown again", async () => {
    const file = join(cli.dir, "timeout-6s.yaml");
    writeFileSync(file, reviewsTimeout("6s"));
    // cluster-west's agent is held for a while, so that the first frames wait for it however fast the
    // rest is: the command has something to redraw on any machine.
    const held = west().kubelet.current()?.process;
    held?.kill("SIGSTOP");
    const release = setTimeout(() => held?.kill("SIGCONT"), 8000);
    const res = await cli.runInTerminal(["apply", "-f", file, "--wait", "--timeout", "120"]).finally(() => {
      clearTimeout(release);
      held?.kill("SIGCONT");
    });
    const screen = res.stdout;
    writeFileSync(join(cli.dir, "terminal.log"), screen); // for a person to look at when this fails
    expect(res.code, screen).toBe(0);
    // The first frame waits; later frames erase it and draw over it; the last one stays.
    const yellow = (text: string) => `${ESC}[33m${text}${ESC}[39m`;
    expect(
      [
        `${yellow("…")} trafficpolicies/reviews-timeout: waiting for translation`,
        ...[0, 1].map((n) => `${yellow("…")} trafficpolicies/reviews-timeout: ACCEPTED, applied by ${n}/2 cluster(s)`),
      ].some((frame) => screen.includes(frame)),
    ).toBe(true);
    expect(screen).toContain(`${ESC}[2K`);
    expect(screen).toContain(`${ESC}[?25l`);
    const shown = screen.lastIndexOf(`${ESC}[?25h`);
    const final = screen.lastIndexOf(`${ESC}[32m✔${ESC}[39m trafficpolicies/reviews-timeout: ACCEPTED, applied by 2 cluster(s)`);
    expect(final).toBeGreaterThan(0);
    expect(shown).toBeGreaterThan(final);
    // Nothing after the last frame but its line end and terminal modes switched back.
    expect(screen.slice(final).replace(new RegExp(`${ESC}\\[[0-9;?]*[A-Za-z]`, "g"), "")).toMatch(/applied by 2 cluster\(s\)\r?\n$/);
    const vs = await east().cluster.request<{ spec: { http: { timeout?: string }[] } }>(
      "GET",
      "/apis/networking.istio.io/v1/namespaces/bookinfo/virtualservices/reviews",
    );
    expect(vs.body.spec.http.some((r) => r.timeout === "6s")).toBe(true);
  });

  it("describe destination and check read the same world", async () => {
    const described = await cli.run(["describe", "dest", "reviews-bookinfo-cluster-east"]);
    expect(described.code, described.stderr).toBe(0);
    expect(described.stdout).toContain("reviews-timeout");
    expect(described.stdout).toContain("bookinfo-reads");
    expect(described.stdout).toContain("VirtualMesh/global ACCEPTED");
    // Federated by the VirtualMesh (its objects name the VirtualMesh as parent, not the destination).
    expect(described.stdout).toContain("from cluster-west as reviews.bookinfo.svc.cluster-east.global, through the east-west gateway of cluster-east (");
    // Under shared trust, the list shows each cluster's intermediate CA expiry (from its agent's report).
    const certificates = await eventually(
      "certificates in cluster list",
      async () => {
        const items = (
          JSON.parse((await cli.run(["cluster", "list", "-o", "json"])).stdout) as {
            items: { name: string; certificates?: { state: string; notAfter?: string }[] }[];
          }
        ).items;
        return items.every((i) => i.certificates?.some((c) => c.state === "issued" && c.notAfter)) ? items : undefined;
      },
      60_000,
    );
    expect(certificates.map((i) => i.name)).toEqual(["cluster-east", "cluster-west"]);
    expect((await cli.run(["cluster", "list"])).stdout).toMatch(/^cluster-east\s+registered.*\s\d+d$/m);
    const check = await eventually(
      "check passes",
      async () => {
        const res = await cli.run(["check"]);
        return res.code === 0 ? res : undefined;
      },
      60_000,
    );
    expect(check.stdout).toContain("cluster-east");
    expect(check.stdout).toMatch(/✔ cluster cluster-west: agent connected, generation \d+ applied, no failures, certificates valid \d+ more days/);
  });
});
