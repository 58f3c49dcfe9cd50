/**
 * `meshplane diff` and `meshplane apply --prune -l` as a CI pipeline runs them (docs/gitops.md#the-cli-in-ci):
 * the bundled CLI as a subprocess against the real local control plane (DynamoDB Local, the SQS
 * emulator), over a directory of YAML that changes between runs. Beside the files' resources the
 * tenant holds one without labels, one of another team and one authored in a cluster, which no prune
 * may touch.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "../../packages/cli/src/client";
import { prune, pruneScope, pruneTargets } from "../../packages/cli/src/commands/prune";
import { registeredAgent } from "../support/agents";
import { type Cli, buildCli } from "../support/cli";
import { type ControlPlane, accessPolicy, startControlPlane, trafficPolicy } from "../support/control-plane";

const TENANT = "gitops";
let cp: ControlPlane;
let cli: Cli;
let admin: string;
let repo: string;
let env: Record<string, string>;

const tp = (name: string, timeout: string, labels = "team: shop") =>
  `apiVersion: meshplane.dev/v1
kind: TrafficPolicy
metadata:
  name: ${name}
  labels: {${labels}}
spec:
  destinationSelector:
  - kubeServiceMatcher: {namespaces: [shop]}
  policy:
    requestTimeout: ${timeout}
`;

const ap = `apiVersion: meshplane.dev/v1
kind: AccessPolicy
metadata: {name: shop-reads, labels: {team: shop, app.kubernetes.io/managed-by: git}}
spec:
  sourceSelector: [{kubeIdentityMatcher: {namespaces: [shop]}}]
  allowedMethods: [GET]
`;

const write = (file: string, text: string) => writeFileSync(join(repo, file), text);

/** Every stored user resource as `Kind/name@resourceVersion`: what "nothing changed" compares. */
async function stored(): Promise<string[]> {
  const out: string[] = [];
  for (const [kind, path] of [
    ["TrafficPolicy", "trafficpolicies"],
    ["AccessPolicy", "accesspolicies"],
  ]) {
    const res = await cp.request("GET", `/v1/${path}`, { token: admin });
    const body = (await res.json()) as { items: { metadata: { name: string; resourceVersion: string } }[] };
    out.push(...body.items.map((i) => `${kind}/${i.metadata.name}@${i.metadata.resourceVersion}`));
  }
  return out.sort();
}

const names = async () => (await stored()).map((s) => s.split("@")[0]).sort();

beforeAll(async () => {
  cli = buildCli();
  cp = await startControlPlane();
  admin = await cp.tenant(TENANT);
  env = { MESHPLANE_URL: cp.url, MESHPLANE_TOKEN: admin };
  repo = join(cli.dir, "policies");
  mkdirSync(join(repo, "more"), { recursive: true });
  write("cart.yaml", tp("cart-retries", "2s"));
  write("checkout.yaml", tp("checkout-timeout", "3s"));
  write("more/access.yaml", ap);
  // Resources the files do not own: one without labels, one of another team (through the API),
  // one with the files' label authored in cluster east (stored as the agent's submission stores it).
  for (const doc of [trafficPolicy("legacy"), trafficPolicy("payments", {}, { team: "pay" }), accessPolicy("console-made")]) {
    const path = doc.kind === "AccessPolicy" ? "accesspolicies" : "trafficpolicies";
    expect((await cp.request("POST", `/v1/${path}`, { token: admin, body: doc })).status).toBe(201);
  }
  await registeredAgent(cp, admin, TENANT, "east");
  const authored = { ...trafficPolicy("cart-retries.shop.east", {}, { team: "shop" }) };
  const source = { cluster: "east", namespace: "shop", name: "cart-retries", uid: "0c7e6a55-1d7b-4c2e-9a51-3f1b2c4d5e6f", generation: 1 };
  await cp.store.resources.write(TENANT, [{ doc: authored as never, mode: "apply", source }], new Date().toISOString());
}, 90_000);

afterAll(async () => {
  await cp?.stop();
});

describe("meshplane diff and apply --prune in CI", () => {
  it("diffs, applies, diffs clean, shows exactly an edit, prunes a removed file's resource and nothing else", async () => {
    const first = await cli.run(["diff", "-R", "-f", repo], { env });
    expect(first).toMatchObject({ code: 1, stderr: "" });
    for (const key of ["TrafficPolicy/cart-retries", "TrafficPolicy/checkout-timeout", "AccessPolicy/shop-reads"])
      expect(first.stdout).toContain(`diff -u -N live/${key} merged/${key}\n--- live/${key}\n+++ merged/${key}\n@@ -0,0 +1,`);
    expect(first.stdout).not.toMatch(/^-(?!-- live)/m);

    const applied = await cli.run(["apply", "-R", "-f", repo], { env });
    expect(applied).toMatchObject({
      code: 0,
      stdout: "trafficpolicies/cart-retries created\ntrafficpolicies/checkout-timeout created\naccesspolicies/shop-reads created\n",
    });
    expect(await cli.run(["diff", "-R", "-f", repo], { env })).toEqual({ code: 0, stdout: "", stderr: "" });
    expect(await cli.run(["diff", "-R", "-f", repo, "--prune", "-l", "team=shop"], { env })).toMatchObject({ code: 0, stdout: "" });

    write("cart.yaml", tp("cart-retries", "5s"));
    expect(await cli.run(["diff", "-R", "-f", repo], { env })).toEqual({
      code: 1,
      stdout: [
        "diff -u -N live/TrafficPolicy/cart-retries merged/TrafficPolicy/cart-retries",
        "--- live/TrafficPolicy/cart-retries",
        "+++ merged/TrafficPolicy/cart-retries",
        "@@ -10,4 +10,4 @@",
        "         namespaces:",
        "           - shop",
        "   policy:",
        "-    requestTimeout: 2s",
        "+    requestTimeout: 5s",
        "",
      ].join("\n"),
      stderr: "",
    });

    rmSync(join(repo, "checkout.yaml"));
    const preview = await cli.run(["diff", "-R", "-f", repo, "--prune", "-l", "team=shop"], { env });
    expect(preview.code).toBe(1);
    expect(preview.stdout).toContain("+    requestTimeout: 5s");
    expect(preview.stdout).toContain("--- live/TrafficPolicy/checkout-timeout\n+++ merged/TrafficPolicy/checkout-timeout\n@@ -1,13 +0,0 @@\n-apiVersion");
    expect(preview.stdout).not.toMatch(/legacy|payments|console-made|\.shop\.east/);

    const before = await stored();
    const dryRun = await cli.run(["apply", "-R", "-f", repo, "--prune", "-l", "team=shop", "--dry-run"], { env });
    expect(dryRun.code).toBe(0);
    expect(dryRun.stdout).toMatch(/pruned by this apply \(not part of the plan above\):\ntrafficpolicies\/checkout-timeout pruned \(dry run\)\n$/);
    expect(await stored()).toEqual(before);

    const pruned = await cli.run(["apply", "-R", "-f", repo, "--prune", "-l", "team=shop"], { env });
    expect(pruned).toMatchObject({
      code: 0,
      stdout: "trafficpolicies/cart-retries configured\naccesspolicies/shop-reads unchanged\ntrafficpolicies/checkout-timeout pruned\n",
    });
    expect(pruned.stderr).toBe("not pruned, authored in a cluster (they belong to that cluster's Git): trafficpolicies/cart-retries.shop.east\n");
    expect(await names()).toEqual(
      [
        "AccessPolicy/console-made",
        "AccessPolicy/shop-reads",
        "TrafficPolicy/cart-retries",
        "TrafficPolicy/cart-retries.shop.east",
        "TrafficPolicy/legacy",
        "TrafficPolicy/payments",
      ].sort(),
    );
    expect(await cli.run(["diff", "-R", "-f", repo, "--prune", "-l", "team=shop"], { env })).toEqual({ code: 0, stdout: "", stderr: "" });
    const json = await cli.run(["apply", "-R", "-f", repo, "--prune", "-l", "team=shop", "-o", "json"], { env });
    expect(JSON.parse(json.stdout)).toEqual({
      results: [expect.objectContaining({ name: "cart-retries", action: "unchanged" }), expect.objectContaining({ name: "shop-reads", action: "unchanged" })],
      pruned: [{ kind: "TrafficPolicy", name: "cart-retries.shop.east", action: "authored" }],
    });
  });

  it("refuses --prune without -l, and -l without --prune, with exit 2 and nothing changed", async () => {
    write("new.yaml", tp("new-one", "1s"));
    const before = await stored();
    const bare = await cli.run(["apply", "-R", "-f", repo, "--prune"], { env });
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain("--prune needs -l SELECTOR (for example -l team=shop): it deletes only resources carrying those labels");
    expect((await cli.run(["apply", "-R", "-f", repo, "-l", "team=shop"], { env })).code).toBe(2);
    expect((await cli.run(["apply", "-R", "-f", repo, "--prune", "-l", "team!=pay"], { env })).stderr).toContain("also matches resources without labels");
    expect((await cli.run(["diff", "-R", "-f", repo, "--prune"], { env })).code).toBe(2);
    expect(await stored()).toEqual(before);
    write("new.yaml", tp("new-one", "1s", "team: pay"));
    const unselected = await cli.run(["apply", "-R", "-f", repo, "--prune", "-l", "team=shop", "--dry-run"], { env });
    expect(unselected).toMatchObject({ code: 0 });
    expect(unselected.stderr).toContain(
      `warning: ${join(repo, "new.yaml")}#1 TrafficPolicy/new-one does not match -l team=shop: --prune will not delete it once its file is gone\n`,
    );
    expect(await stored()).toEqual(before);
    rmSync(join(repo, "new.yaml"));
  });

  it("a bad file: exit 2 naming the file, document and field, nothing changed, nothing pruned", async () => {
    write("broken.yaml", `${tp("fine-one", "1s")}---\n${tp("broken", "1s").replace("requestTimeout: 1s", "retries: {attempts: -1}")}`);
    rmSync(join(repo, "cart.yaml"));
    const before = await stored();
    const where = `${join(repo, "broken.yaml")}#2 TrafficPolicy/broken spec.policy.retries.attempts: `;
    const diffed = await cli.run(["diff", "-R", "-f", repo, "--prune", "-l", "team=shop"], { env });
    expect(diffed).toMatchObject({ code: 2, stdout: "" });
    expect(diffed.stderr).toContain(`error: 1 problem(s) in the documents; nothing was sent\n  ${where}`);
    const applied = await cli.run(["apply", "-R", "-f", repo, "--prune", "-l", "team=shop"], { env });
    expect(applied).toMatchObject({ code: 2, stdout: "" });
    expect(applied.stderr).toContain(where);
    write("unreadable.yaml", "kind: [unclosed\n");
    expect(await cli.run(["diff", "-R", "-f", repo], { env })).toMatchObject({ code: 2, stderr: expect.stringContaining("unreadable.yaml#1: ") });
    expect(await stored()).toEqual(before);
    rmSync(join(repo, "broken.yaml"));
    rmSync(join(repo, "unreadable.yaml"));
    write("cart.yaml", tp("cart-retries", "5s"));
  });

  it("keeps a resource changed after it was listed: the delete holds only at the listed resourceVersion", async () => {
    write("doomed.yaml", tp("doomed", "1s"));
    expect((await cli.run(["apply", "-R", "-f", repo], { env })).code).toBe(0);
    rmSync(join(repo, "doomed.yaml"));
    const client = createClient(cp.url, admin, { userAgent: "test" });
    const scope = pruneScope({ prune: true, selector: "team=shop" });
    const found = await pruneTargets(client, scope as NonNullable<typeof scope>, new Set(["TrafficPolicy/cart-retries", "AccessPolicy/shop-reads"]));
    expect(found.targets.map((t) => t.name)).toEqual(["doomed"]);
    // Someone edits it in the console meanwhile.
    const edited = { ...trafficPolicy("doomed"), metadata: { name: "doomed", labels: { team: "shop" } } };
    expect((await cp.request("PUT", "/v1/trafficpolicies/doomed", { token: admin, body: edited })).status).toBe(200);
    const lines: string[] = [];
    const sink = {
      write: (s: string) => {
        lines.push(s);
        return true;
      },
    } as never;
    const outcome = await prune(client, { out: sink, err: sink, env: {} }, found, { dryRun: false, quiet: false });
    expect(outcome).toMatchObject({ ok: false, entries: expect.arrayContaining([{ kind: "TrafficPolicy", name: "doomed", action: "changed" }]) });
    expect(lines.join("")).toMatch(/trafficpolicies\/doomed not pruned: it changed after it was listed \(resourceVersion \d+\); apply again to prune it/);
    expect(await names()).toContain("TrafficPolicy/doomed");
    // The CLI itself, run again, prunes it, and says so.
    expect(await cli.run(["apply", "-R", "-f", repo, "--prune", "-l", "team=shop", "--prune-allowlist", "tp"], { env })).toMatchObject({
      code: 0,
      stdout: expect.stringContaining("trafficpolicies/doomed pruned\n"),
    });
    expect(await names()).not.toContain("TrafficPolicy/doomed");
  });
});
