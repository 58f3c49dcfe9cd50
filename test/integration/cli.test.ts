/**
 * The `meshplane` command, bundled and run as a subprocess against the real local control plane
 * (DynamoDB Local, the SQS emulator): every command here, its output modes, exit codes and bad input.
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Cli, buildCli } from "../support/cli";
import { discoveryOf, registeredAgent } from "../support/agents";
import { ambientDiscovery } from "../support/ambient-discovery";
import { type ControlPlane, startControlPlane } from "../support/control-plane";

let cp: ControlPlane;
let cli: Cli;
let admin: string;

const tp = (name: string, extra = "") => `apiVersion: meshplane.dev/v1
kind: TrafficPolicy
metadata:
  name: ${name}
  labels: {team: payments}
spec:
  policy:
    requestTimeout: 2s${extra}
`;

function files(name: string, content: Record<string, string>): string {
  const dir = join(cli.dir, name);
  for (const [file, text] of Object.entries(content)) {
    mkdirSync(join(dir, file, ".."), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  return dir;
}

const reviews = (name: string, policy: string) =>
  `apiVersion: meshplane.dev/v1\nkind: TrafficPolicy\nmetadata: {name: ${name}}\nspec:\n  destinationSelector: [{kubeServiceRefs: {services: [{cluster: cluster-east, namespace: bookinfo, name: reviews}]}}]\n  policy: ${policy}\n`;

/** An $EDITOR that changes the policy's timeout in the file it is given. */
const sed = (from: string, to: string) => ({ EDITOR: `sed -i 's/requestTimeout: ${from}/requestTimeout: ${to}/'` });

async function policyNames(): Promise<string[]> {
  const res = await cp.request("GET", "/v1/trafficpolicies", { token: admin });
  return ((await res.json()) as { items: { metadata: { name: string } }[] }).items.map((i) => i.metadata.name);
}

beforeAll(async () => {
  cli = buildCli();
  cp = await startControlPlane();
  admin = await cp.tenant("cli");
  const login = await cli.run(["login", "--url", cp.url, "--name", "local"], { stdin: `${admin}\n` });
  expect(login).toMatchObject({ code: 0 });
}, 60_000);

afterAll(async () => {
  await cp?.stop();
});

describe("meshplane CLI", () => {
  it("prints its version and help with examples", async () => {
    expect((await cli.run(["--version"])).stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    const help = await cli.run(["--help"]);
    expect(help.code).toBe(0);
    for (const command of ["login", "context", "get", "apply", "delete", "cluster", "token", "tenant"]) expect(help.stdout).toContain(command);
    expect((await cli.run(["apply", "--help"])).stdout).toContain("Examples:");
    const bash = await cli.run(["completion", "bash"]);
    expect(bash.code).toBe(0);
    expect(bash.stdout).toContain("complete -F _meshplane meshplane");
    expect((await cli.run(["completion", "tcsh"])).code).not.toBe(0);
  });

  it("logs in with the token from stdin: a 0600 file in a 0700 directory, the token never printed", async () => {
    const login = await cli.run(["login", "--url", cp.url, "--name", "again"], { stdin: admin });
    expect(login.code).toBe(0);
    expect(login.stdout + login.stderr).not.toContain(admin);
    expect(statSync(cli.configPath).mode & 0o777).toBe(0o600);
    expect(statSync(join(cli.configPath, "..")).mode & 0o777).toBe(0o700);
    const list = await cli.run(["context", "list"]);
    expect(list.stdout).toMatch(/\*\s+again/);
    expect(list.stdout).not.toContain(admin);
    expect((await cli.run(["context", "use", "local"])).code).toBe(0);
    expect((await cli.run(["context", "list", "-o", "json"])).stdout).toContain('"current": true');
    expect(await cli.run(["context", "use", "nope"])).toMatchObject({ code: 2, stderr: expect.stringContaining('no context "nope"') });
  });

  it("refuses a bad token at login and saves nothing", async () => {
    const before = (await cli.run(["context", "list", "-o", "name"])).stdout;
    const bad = await cli.run(["login", "--url", cp.url, "--name", "bad"], { stdin: "mpt_not-a-token" });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/error: .*log in again/);
    expect((await cli.run(["context", "list", "-o", "name"])).stdout).toBe(before);
  });

  it("applies a directory of multi-document files, then again unchanged, and lists them every way", async () => {
    const dir = files("apply", { "a.yaml": `${tp("alpha")}---\n${tp("beta")}`, "sub/c.yaml": tp("gamma"), "notes.txt": "not read" });
    const flat = await cli.run(["apply", "-f", dir]);
    expect(flat).toMatchObject({ code: 0, stdout: "trafficpolicies/alpha created\ntrafficpolicies/beta created\n" });
    const deep = await cli.run(["apply", "-R", "-f", dir]);
    expect(deep.stdout).toBe("trafficpolicies/alpha unchanged\ntrafficpolicies/beta unchanged\ntrafficpolicies/gamma created\n");

    const tableOut = await cli.run(["get", "tp"]);
    expect(tableOut.stdout.split("\n")[0]).toMatch(/^NAME\s+STATE\s+GENERATION$/);
    expect(tableOut.stdout).toMatch(/alpha\s+PENDING\s+1/);
    expect((await cli.run(["get", "trafficpolicies", "-o", "name"])).stdout).toBe("trafficpolicies/alpha\ntrafficpolicies/beta\ntrafficpolicies/gamma\n");
    const json = JSON.parse((await cli.run(["get", "TrafficPolicy", "-o", "json"])).stdout) as { items: unknown[] };
    expect(json.items).toHaveLength(3);
    expect((await cli.run(["get", "tp", "beta", "-o", "yaml"])).stdout).toMatch(
      /^apiVersion: meshplane.dev\/v1\nkind: TrafficPolicy\nmetadata:\n {2}name: beta/,
    );
    expect((await cli.run(["get", "tp", "-o", "wide"])).stdout).toMatch(/LABELS[\s\S]*team=payments/);
    expect((await cli.run(["get", "tp", "-l", "team!=payments", "-o", "name"])).stdout).toBe("");
  });

  it("reads documents from stdin", async () => {
    expect(await cli.run(["apply", "-f", "-"], { stdin: tp("from-stdin") })).toMatchObject({ code: 0, stdout: "trafficpolicies/from-stdin created\n" });
  });

  it("bad input: a clear line naming the file, document and field, a non-zero exit, nothing stored", async () => {
    const before = await policyNames();
    const badYaml = await cli.run(["apply", "-f", files("bad-yaml", { "x.yaml": "kind: [unclosed\n" })]);
    expect(badYaml.code).toBe(2);
    expect(badYaml.stderr).toMatch(/x\.yaml#1: /);
    const unknownKind = await cli.run(["apply", "-f", files("bad-kind", { "x.yaml": `${tp("fine")}---\nkind: Deployment\nmetadata: {name: web}\n` })]);
    expect(unknownKind.code).toBe(2);
    expect(unknownKind.stderr).toMatch(/x\.yaml#2: kind must be VirtualMesh, TrafficPolicy or AccessPolicy, not "Deployment"/);
    const invalid = await cli.run(["apply", "-f", files("bad-field", { "x.yaml": `${tp("fine")}---\n${tp("wrong", "\n    retries: {attempts: -1}")}` })]);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/x\.yaml#2 TrafficPolicy\/wrong spec\.policy\.retries\.attempts: /);
    expect(await cli.run(["get", "nonsense"])).toMatchObject({ code: 2, stderr: expect.stringContaining('unknown kind "nonsense"') });
    expect(await policyNames()).toEqual(before);
  });

  it("plans with --dry-run: predicted states, nothing stored, exit 1 when a policy would be INVALID", async () => {
    const before = await policyNames();
    const ok = await cli.run(["apply", "--dry-run", "-f", "-"], { stdin: tp("planned") });
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain("predicted states:");
    expect(ok.stdout).toMatch(/TrafficPolicy\/planned: (ACCEPTED|PENDING)/);
    const json = JSON.parse((await cli.run(["apply", "--dry-run", "-o", "json", "-f", "-"], { stdin: tp("planned") })).stdout) as { statuses: object };
    expect(Object.keys(json.statuses)).toContain("TrafficPolicy/planned");
    const vm = "apiVersion: meshplane.dev/v1\nkind: VirtualMesh\nmetadata: {name: nowhere}\nspec:\n  meshes: [{name: no-such-mesh}]\n";
    const invalid = await cli.run(["apply", "--dry-run", "-f", "-"], { stdin: vm });
    expect(invalid.code).toBe(1);
    expect(invalid.stdout).toMatch(/VirtualMesh\/nowhere: INVALID\n {4}\S/);
    expect(await policyNames()).toEqual(before);
  });

  it("deletes by name and by file; a missing one is an error unless --ignore-not-found", async () => {
    expect(await cli.run(["delete", "tp", "from-stdin"])).toMatchObject({ code: 0, stdout: "trafficpolicies/from-stdin deleted\n" });
    expect(await cli.run(["delete", "tp", "from-stdin"])).toMatchObject({ code: 1, stderr: expect.stringContaining("trafficpolicies/from-stdin not found") });
    expect((await cli.run(["delete", "tp", "from-stdin", "--ignore-not-found"])).code).toBe(0);
    const dir = files("delete", { "g.yaml": tp("gamma") });
    expect(await cli.run(["delete", "-f", dir])).toMatchObject({ code: 0, stdout: "trafficpolicies/gamma deleted\n" });
    expect(await cli.run(["delete", "destinations", "x"])).toMatchObject({ code: 2 });
  });

  it("registers a cluster (the helm line), lists, describes, re-issues its bootstrap token and deregisters it", async () => {
    const reg = await cli.run(["cluster", "register", "east", "--label", "region=eu"]);
    expect(reg.code).toBe(0);
    expect(reg.stdout).toMatch(/helm (upgrade --install|install) /);
    expect(reg.stdout).toMatch(/bootstrap\.token=\S+/);
    const json = JSON.parse((await cli.run(["cluster", "register", "west", "-o", "json"])).stdout) as { bootstrapToken: string; helmInstall: string };
    expect(json.helmInstall).toContain(json.bootstrapToken);
    expect((await cli.run(["cluster", "list"])).stdout).toMatch(/east\s+pending/);
    expect((await cli.run(["get", "clusters", "-o", "name"])).stdout).toBe("clusters/east\nclusters/west\n");
    expect((await cli.run(["cluster", "describe", "east"])).stdout).toMatch(/Labels:\s+region=eu/);
    expect((await cli.run(["cluster", "bootstrap-token", "east"])).stdout).toMatch(/new bootstrap token for cluster east/);
    expect(await cli.run(["cluster", "deregister", "west"])).toMatchObject({ code: 0, stdout: "cluster west deregistered\n" });
    expect(await cli.run(["cluster", "describe", "west"])).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: /) });
    expect(await cli.run(["cluster", "register", "Not_A_Name"])).toMatchObject({ code: 1, stderr: expect.stringContaining("name") });
  });

  it("creates, lists and revokes tokens; the last admin token cannot be revoked", async () => {
    const created = await cli.run(["token", "create", "ci", "--role", "editor", "--ttl-days", "30"]);
    expect(created.code).toBe(0);
    const secret = /token: (\S+)/.exec(created.stdout)?.[1] as string;
    expect(created.stderr).toContain("shown once");
    const list = await cli.run(["token", "list"]);
    expect(list.stdout).toMatch(/ci\s+editor\s+token [0-9a-f]{16}\s/);
    expect(list.stdout).toMatch(/initial-admin\s+admin\s+operator\s/);
    expect(list.stdout).not.toContain(secret);
    const { items } = JSON.parse((await cli.run(["token", "list", "-o", "json"])).stdout) as { items: { id: string; name: string; role: string }[] };
    expect((await cli.run(["token", "revoke", items.find((t) => t.name === "ci")?.id as string])).code).toBe(0);
    const lastAdmin = items.find((t) => t.role === "admin")?.id as string;
    expect(await cli.run(["token", "revoke", lastAdmin])).toMatchObject({ code: 1, stderr: expect.stringContaining("admin") });
    expect(await cli.run(["token", "create", "x", "--role", "editor", "--ttl-days", "0"])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("--ttl-days"),
    });
  });

  it("works from the environment alone (CI): the operator creates, lists and deletes a tenant", async () => {
    const env = { MESHPLANE_URL: cp.url, MESHPLANE_TOKEN: cp.operatorToken, MESHPLANE_CONFIG: join(cli.dir, "none.json") };
    const created = await cli.run(["tenant", "create", "from-ci"], { env });
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/admin token: mpt_/);
    expect((await cli.run(["tenant", "list", "-o", "name"], { env })).stdout).toContain("from-ci");
    expect((await cli.run(["tenant", "delete", "from-ci"], { env })).code).toBe(0);
    expect((await cli.run(["get", "tp"], { env })).code).toBe(1); // the operator is no tenant
  });

  it("check: exit 0 only when every cluster's agent is connected and in sync, else a line saying what is wrong", async () => {
    const token = await cp.tenant("checked");
    const env = { MESHPLANE_URL: cp.url, MESHPLANE_TOKEN: token };
    expect(await cli.run(["check"], { env })).toMatchObject({ code: 1, stdout: expect.stringContaining("none registered") });
    const agent = await registeredAgent(cp, token, "checked", "edge");
    await agent.client.snapshot(); // a poll: the agent is seen
    const ok = await cli.run(["check"], { env });
    expect(ok.code, ok.stdout).toBe(0);
    expect(ok.stdout).toMatch(/✔ cluster edge: agent connected, generation 0 applied, no failures\nall checks passed\n$/);
    expect((await cli.run(["cluster", "list"], { env })).stdout).toMatch(/edge\s+registered\s+\d+s ago\s+0\/0\s+yes\s+0\s+-/);
    expect((await cli.run(["cluster", "register", "late"], { env })).code).toBe(0);
    // An agent whose last poll was twenty minutes ago, by the control plane's clock.
    const was = cp.clock.now;
    cp.clock.now = new Date(Date.now() - 20 * 60_000);
    try {
      await (await registeredAgent(cp, token, "checked", "quiet")).client.snapshot();
    } finally {
      cp.clock.now = was;
    }
    const failing = await cli.run(["check"], { env });
    expect(failing.code).toBe(1);
    expect(failing.stdout).toContain("✘ cluster late\n    its agent has not registered yet");
    expect(failing.stdout).toMatch(/✘ cluster quiet\n {4}its agent was last seen 2\dm ago/);
    const json = JSON.parse((await cli.run(["check", "-o", "json"], { env })).stdout) as { ok: boolean; checks: { ok: boolean; problems: string[] }[] };
    expect(json.ok).toBe(false);
    expect(json.checks.filter((c) => !c.ok)).toHaveLength(2);
    expect((await cli.run(["check", "--stale-after", "3600"], { env })).stdout).not.toContain("cluster quiet\n");
    expect(await cli.run(["check", "--stale-after", "soon"], { env })).toMatchObject({ code: 2 });
  });

  it("apply --wait: waits for translation, exits 0 when done and 1 naming the resource and reason when INVALID", async () => {
    const token = await cp.tenant("waits");
    const env = { MESHPLANE_URL: cp.url, MESHPLANE_TOKEN: token };
    await cp.jobs(); // earlier tests' jobs are not this test's
    /**
     * Runs the CLI while the worker translates what is queued, as the deployed worker would — once
     * the CLI has stored its documents and had a second to read them back untranslated, so that what
     * it says while waiting does not depend on which of the two a busy machine runs first.
     */
    const withWorker = async (args: string[], stdin: string) => {
      const running = cli.run(args, { env, stdin });
      const state = { finished: false };
      void running.then(() => (state.finished = true));
      while (
        !state.finished &&
        (await cp.request("GET", "/v1/trafficpolicies", { token }).then((r) => r.json() as Promise<{ items: unknown[] }>)).items.length === 0
      ) {
        await new Promise((r) => setTimeout(r, 100));
      }
      await new Promise((r) => setTimeout(r, 1000));
      while (!state.finished) {
        await cp.work();
        await new Promise((r) => setTimeout(r, 200));
      }
      return running;
    };
    const ok = await withWorker(["apply", "--wait", "--timeout", "60", "-f", "-"], tp("waited"));
    expect(ok.stdout).toBe("trafficpolicies/waited created\n");
    expect(ok.stderr).toMatch(/trafficpolicies\/waited: waiting for translation\n/);
    expect(ok.stderr).toMatch(/✔ trafficpolicies\/waited: ACCEPTED, applied by 0 cluster\(s\)\n$/);
    expect(ok.code).toBe(0);
    const vm = "apiVersion: meshplane.dev/v1\nkind: VirtualMesh\nmetadata: {name: nowhere}\nspec:\n  meshes: [{name: no-such-mesh}]\n";
    const invalid = await withWorker(["apply", "--wait", "-f", "-"], vm);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/✘ virtualmeshes\/nowhere: INVALID\n {4}\S.*\n/);
    expect(invalid.stderr).toContain("1 resource(s) INVALID or FAILED");
    const timedOut = await cli.run(["apply", "--wait", "--timeout", "1", "-f", "-"], { env, stdin: tp("never-translated") });
    expect(timedOut.code).toBe(1);
    expect(timedOut.stderr).toContain("timed out after 1 s; still waiting: trafficpolicies/never-translated");
  });

  it("describe: a destination's policies in acceptance order with the conflict, who may call it, its objects; a policy; a workload", async () => {
    const token = await cp.tenant("described");
    const env = { MESHPLANE_URL: cp.url, MESHPLANE_TOKEN: token };
    const agent = await registeredAgent(cp, token, "described", "cluster-east");
    await agent.client.discovery(discoveryOf("istio-bookinfo", "cluster-east"));
    expect((await cli.run(["apply", "-f", "-"], { env, stdin: reviews("first", "{requestTimeout: 1s, retries: {attempts: 2}}") })).code).toBe(0);
    expect((await cli.run(["apply", "-f", "-"], { env, stdin: reviews("second", "{requestTimeout: 9s}") })).code).toBe(0);
    await cp.work();

    const dest = await cli.run(["describe", "dest", "reviews-bookinfo-cluster-east"], { env });
    expect(dest.code, dest.stderr).toBe(0);
    expect(dest.stdout).toMatch(/Service:\s+bookinfo\/reviews in cluster cluster-east/);
    expect(dest.stdout).toMatch(
      /Policies, in acceptance order\n {2}1\. TrafficPolicy\/first ACCEPTED sets requestTimeout, retries\n {2}-\. TrafficPolicy\/second INVALID sets requestTimeout\n {7}conflicts with TrafficPolicy first/,
    );
    expect(dest.stdout).toMatch(/Who may call it\n {2}every caller/);
    expect(dest.stdout).toMatch(/not federated to any other cluster/);
    expect(dest.stdout).toMatch(/Generated objects \(the service's own.*\n {2}cluster-east: DestinationRule bookinfo\/reviews\n/);
    const json = JSON.parse((await cli.run(["describe", "dest", "reviews-bookinfo-cluster-east", "-o", "json"], { env })).stdout) as {
      policies: { name: string; state: string }[];
    };
    expect(json.policies.map((x) => `${x.name} ${x.state}`)).toEqual(["first ACCEPTED", "second INVALID"]);

    const second = await cli.run(["describe", "tp", "second"], { env });
    expect(second.code).toBe(1);
    expect(second.stdout).toMatch(/State:\s+INVALID/);
    expect(second.stdout).toMatch(/reviews-bookinfo-cluster-east: INVALID\n {4}conflicts with TrafficPolicy first/);
    const first = await cli.run(["describe", "policy", "first"], { env });
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/Generated objects\n {2}cluster-east: VirtualService/);

    const wl = await cli.run(["describe", "wl", "productpage--v1-bookinfo-cluster-east-deployment"], { env });
    expect(wl.code, wl.stderr).toBe(0);
    // A sidecar workload and destination: one more line each, and no waypoint (docs/ambient.md).
    expect(wl.stdout).toMatch(/Identity:\s+service account \S+\nData plane:\s+sidecar\n\nWhat applies/);
    expect(dest.stdout).toMatch(/Subsets:.*\nData plane:\s+sidecar\n\nPolicies/);
    expect((await cli.run(["get", "wl"], { env })).stdout.split("\n")[0]).toMatch(/^NAME\s+CLUSTER\s+NAMESPACE\s+MESH\s+DATA PLANE$/);
    expect(wl.stdout).toMatch(/TrafficPolicy\/first ACCEPTED \(every caller\) → reviews-bookinfo-cluster-east/);
    expect(await cli.run(["describe", "dest", "nope"], { env })).toMatchObject({ code: 1, stderr: expect.stringContaining("no destination named nope") });
    expect(await cli.run(["describe", "gadget", "x"], { env })).toMatchObject({ code: 2 });

    // A planned change, as a diff of the generated objects against what the cluster has now.
    const plan = await cli.run(["apply", "--dry-run", "-f", "-"], { env, stdin: reviews("first", "{requestTimeout: 4s, retries: {attempts: 2}}") });
    expect(plan.stdout).toMatch(/cluster cluster-east: 0 added, 1 changed, 0 removed\n {2}~ VirtualService bookinfo\/reviews\n {4}@@ [^\n]+ @@\n/);
    expect(plan.stdout).toMatch(/\n {4}- +timeout: 1s\n {4}\+ +timeout: 4s\n/);

    // A migration's plan (docs/ambient.md#migration): the mesh's output API, its routes swapped, each state before → after.
    const mesh = "istiod-istio--system-cluster-east";
    const routed = await cli.run(["apply", "--dry-run", "--routing", `${mesh}=gateway_api`], { env });
    expect(routed.stderr).toBe(""); // exit 1: this tenant holds a conflicting policy (INVALID) already
    expect(routed.stdout).toContain(`output API:\n  mesh ${mesh} (cluster cluster-east): ISTIO → GATEWAY_API\n`);
    expect(routed.stdout).toMatch(
      /cluster cluster-east: 1 added, 0 changed, 1 removed\n {2}\+ HTTPRoute bookinfo\/reviews\n[^]*\n {2}- VirtualService bookinfo\/reviews\n/,
    );
    // first's retries need Istio 1.25 on an HTTPRoute: it would lose to second, which it beats today.
    expect(routed.stdout).toMatch(
      /TrafficPolicy\/first: ACCEPTED → INVALID\n {4}destination reviews-bookinfo-cluster-east: retries: Istio implements HTTPRoute retries from 1\.25;[^\n]*\n {2}TrafficPolicy\/second: INVALID → ACCEPTED\n/,
    );
    const fault = reviews("first", "{requestTimeout: 1s, faultInjection: {abort: {httpStatus: 503}, percentage: 10}}");
    const broken = await cli.run(["apply", "--dry-run", "-f", "-", "--routing", `${mesh}=GATEWAY_API`], { env, stdin: fault });
    expect(broken.code).toBe(1);
    expect(broken.stdout).toMatch(
      /TrafficPolicy\/first: ACCEPTED → INVALID\n {4}destination reviews-bookinfo-cluster-east: faultInjection: Gateway API has no fault injection/,
    );
    const routedJson = JSON.parse((await cli.run(["apply", "--dry-run", "-o", "json", "--routing", `${mesh}=GATEWAY_API`], { env })).stdout) as {
      routing: object;
    };
    expect(routedJson.routing).toEqual({ [mesh]: { cluster: "cluster-east", from: "ISTIO", to: "GATEWAY_API", state: "ACCEPTED" } });
    expect(await cli.run(["apply", "--dry-run", "--routing", "nope=ISTIO"], { env })).toMatchObject({
      code: 1,
      stderr: expect.stringContaining("routing.nope: no Istio mesh of a registered cluster is named nope"),
    });
    expect(await cli.run(["apply", "--dry-run", "--routing", mesh], { env })).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("--routing must be MESH=ISTIO"),
    });
    expect(await cli.run(["apply", "--routing", `${mesh}=ISTIO`, "-f", "-"], { env, stdin: fault })).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("--routing only plans: add --dry-run"),
    });
    expect((await cli.run(["get", "tp", "first", "-o", "json"], { env })).stdout).toContain('"requestTimeout": "1s"');
  });

  it("an ambient cluster: each workload's and destination's data plane and waypoint, the mesh's ztunnel and waypoints, in get, describe and the API", async () => {
    const token = await cp.tenant("ambient");
    const env = { MESHPLANE_URL: cp.url, MESHPLANE_TOKEN: token };
    const agent = await registeredAgent(cp, token, "ambient", "cluster-amb");
    await agent.client.discovery(ambientDiscovery("cluster-amb") as never);

    const wl = await cli.run(["get", "wl"], { env });
    expect(wl.code, wl.stderr).toBe(0);
    const wlLines = wl.stdout.split("\n");
    expect(wlLines[0]).toMatch(/^NAME\s+CLUSTER\s+NAMESPACE\s+MESH\s+DATA PLANE\s+WAYPOINT$/);
    expect(wlLines.find((l) => l.startsWith("cart-"))).toMatch(/^cart-shop-cluster-amb-deployment\s+cluster-amb\s+shop\s+\S+\s+ambient$/);
    expect(wlLines.find((l) => l.startsWith("pay-"))).toMatch(/\s+ambient\s+shop\/pay-waypoint$/);
    expect(wlLines.find((l) => l.startsWith("legacy-"))).toMatch(/\s+sidecar$/);
    const dest = await cli.run(["get", "dest"], { env });
    const destLines = dest.stdout.split("\n");
    expect(destLines[0]).toMatch(/^NAME\s+CLUSTER\s+NAMESPACE\s+MESH\s+PORTS\s+DATA PLANE\s+WAYPOINT$/);
    expect(destLines.find((l) => l.startsWith("cart-"))).toMatch(/\s+8080\/TCP\s+ambient\s+shop\/waypoint$/);
    // Reported without a data plane, as an agent that predates ambient does: sidecar.
    expect(destLines.find((l) => l.startsWith("legacy-"))).toMatch(/\s+8080\/TCP\s+sidecar$/);
    expect((await cli.run(["get", "meshes", "-o", "wide"], { env })).stdout).toMatch(/ZTUNNEL\n\S+\s+cluster-amb\s+istio\s+cluster\.local\s+1\.24\.2\n/);

    // -o json prints the objects as the API returns them, the discovered fields in them.
    const json = JSON.parse((await cli.run(["get", "wl", "pay-shop-cluster-amb-deployment", "-o", "json"], { env })).stdout) as {
      spec: { dataPlane: string; waypoint: object };
    };
    expect(json.spec).toMatchObject({ dataPlane: "ambient", waypoint: { name: "pay-waypoint", namespace: "shop" } });
    const meshName = JSON.parse((await cli.run(["get", "meshes", "-o", "json"], { env })).stdout).items[0].metadata.name as string;

    const mesh = await cli.run(["describe", "mesh", meshName], { env });
    expect(mesh.code, mesh.stderr).toBe(0);
    expect(mesh.stdout).toMatch(
      /Data plane:\s+ztunnel 1\.24\.2 in istio-system\nNetwork:\s+network-amb\nMulti-network:\s+on \(istiod's AMBIENT_ENABLE_MULTI_NETWORK=true\)\n/,
    );
    // The seeded report predates the HTTPRoute CRD's facts (docs/ambient.md#retries-and-the-crd-channel).
    expect(mesh.stdout).toMatch(/Multi-network:.*\nGateway API:\s+unknown: the cluster's agent does not report it \(upgrade the agent and its chart\)\n/);
    expect(mesh.stdout).toMatch(/Workloads:\s+1 sidecar, 2 ambient\n/);
    expect(mesh.stdout).toMatch(
      /Waypoints\n {2}shop\/pay-waypoint for workload: serves workloads pay-shop-cluster-amb-deployment\n {2}shop\/waypoint for service: serves destinations cart-shop-cluster-amb\n/,
    );
    const meshJson = JSON.parse((await cli.run(["describe", "mesh", meshName, "-o", "json"], { env })).stdout) as { ztunnel: object; waypoints: unknown[] };
    expect(meshJson.ztunnel).toEqual({ namespace: "istio-system", version: "1.24.2" });
    expect(meshJson.waypoints).toHaveLength(2);

    const cart = await cli.run(["describe", "dest", "cart-shop-cluster-amb"], { env });
    expect(cart.stdout).toMatch(/Data plane:\s+ambient\nWaypoint:\s+shop\/waypoint\n/);
    expect((await cli.run(["describe", "dest", "pay-shop-cluster-amb"], { env })).stdout).toMatch(/Data plane:\s+ambient\nWaypoint:\s+none\n/);
    expect((await cli.run(["describe", "wl", "pay-shop-cluster-amb-deployment"], { env })).stdout).toMatch(
      /Data plane:\s+ambient\nWaypoint:\s+shop\/pay-waypoint\n/,
    );
    expect(await cli.run(["describe", "mesh", "nope"], { env })).toMatchObject({ code: 1, stderr: expect.stringContaining("no mesh named nope") });

    // The API's document says so too: the discovered schemas are the list responses'.
    const openapi = JSON.stringify(await (await cp.request("GET", "/openapi.json")).json());
    for (const field of ['"dataPlane"', '"waypoint"', '"ztunnel"', '"waypoints"', '"multiNetwork"']) expect(openapi).toContain(field);
  });

  it("edit: $EDITOR's change is applied with If-Match; unchanged is cancelled; a conflict or a bad field applies nothing and keeps the text", async () => {
    expect((await cli.run(["apply", "-f", "-"], { stdin: tp("edited") })).code).toBe(0);
    const timeoutOf = async () =>
      ((await (await cp.request("GET", "/v1/trafficpolicies/edited", { token: admin })).json()) as { spec: { policy: { requestTimeout: string } } }).spec.policy
        .requestTimeout;
    const edited = await cli.run(["edit", "tp", "edited"], { env: sed("2s", "7s") });
    expect(edited).toMatchObject({ code: 0, stdout: "trafficpolicies/edited edited\n" });
    expect(await timeoutOf()).toBe("7s");
    expect(await cli.run(["edit", "tp", "edited"], { env: { EDITOR: "true" } })).toMatchObject({ code: 0, stderr: "edit cancelled: no changes made\n" });

    const bad = await cli.run(["edit", "tp", "edited"], { env: sed("7s", "soon") });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/your text: (\S+)\)\n {2}spec\.policy\.requestTimeout: /);
    expect(readFileSync(/your text: (\S+)\)/.exec(bad.stderr)?.[1] as string, "utf8")).toContain("requestTimeout: soon");
    expect(await timeoutOf()).toBe("7s");

    // Someone else changes it while the editor is open.
    const meanwhile = join(cli.dir, "meanwhile.mjs");
    writeFileSync(
      meanwhile,
      `import { readFileSync, writeFileSync } from "node:fs";
const url = ${JSON.stringify(`${cp.url}/v1/trafficpolicies/edited`)}, headers = { authorization: "Bearer ${admin}", "content-type": "application/json" };
const current = await (await fetch(url, { headers })).json();
current.spec.policy.requestTimeout = "9s";
await fetch(url, { method: "PUT", headers, body: JSON.stringify({ apiVersion: current.apiVersion, kind: current.kind, metadata: { name: "edited" }, spec: current.spec }) });
writeFileSync(process.argv[2], readFileSync(process.argv[2], "utf8").replace("requestTimeout: 7s", "requestTimeout: 1s"));
`,
    );
    const stale = await cli.run(["edit", "tp", "edited"], { env: { EDITOR: `node ${meanwhile}` } });
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain("changed since you opened it; run edit again");
    expect(await timeoutOf()).toBe("9s");
    expect(await cli.run(["edit", "clusters", "east"])).toMatchObject({ code: 2 });
  });

  it("imports Gloo Mesh v1 YAML: documents on stdout that apply as they are, what was dropped on stderr", async () => {
    const input = join(import.meta.dirname, "../golden/gloo-import/fault-injection/input.yaml");
    const imported = await cli.run(["import", "gloo", "-f", input]);
    expect(imported.code).toBe(0);
    expect(imported.stdout).toMatch(/^---\napiVersion: meshplane.dev\/v1\nkind: TrafficPolicy/);
    expect(imported.stderr).toMatch(/document\(s\) converted/);
    const applied = await cli.run(["apply", "-f", "-"], { stdin: imported.stdout });
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toMatch(/^trafficpolicies\/\S+ created\n/);
    const bad = await cli.run(["import", "gloo", "-f", "-"], { stdin: "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n" });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/error: /);
  });

  it("an expired token, an unreachable control plane, no login: each a clear line and a non-zero exit", async () => {
    const res = await cp.request("POST", "/v1/tokens", { token: admin, body: { name: "short", role: "viewer", ttlDays: 1 } });
    const short = ((await res.json()) as { token: string }).token;
    const was = cp.clock.now;
    cp.clock.now = new Date(was.getTime() + 2 * 86_400_000);
    try {
      const expired = await cli.run(["get", "tp"], { env: { MESHPLANE_URL: cp.url, MESHPLANE_TOKEN: short } });
      expect(expired.code).toBe(1);
      expect(expired.stderr).toMatch(/^error: .*\(log in again: `meshplane login`\)\n$/);
    } finally {
      cp.clock.now = was;
    }
    const down = await cli.run(["get", "tp"], { env: { MESHPLANE_URL: "http://127.0.0.1:9", MESHPLANE_TOKEN: "x" } });
    expect(down).toMatchObject({ code: 1, stderr: expect.stringContaining("cannot reach the control plane at http://127.0.0.1:9") });
    const none = await cli.run(["get", "tp"], { env: { MESHPLANE_CONFIG: join(cli.dir, "missing.json") } });
    expect(none).toMatchObject({ code: 2, stderr: expect.stringContaining("not logged in") });
  });
});
