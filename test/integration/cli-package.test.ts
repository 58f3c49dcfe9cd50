/**
 * The CLI as it ships: `npm pack` of packages/cli (its prepack bundles dist/), the tarball installed
 * into an empty prefix with no registry, and the installed `meshplane` run against the real local
 * control plane — so it works from a clean install, not only inside the repository.
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type ControlPlane, startControlPlane } from "../support/control-plane";

const ROOT = join(import.meta.dirname, "../..");
let cp: ControlPlane;
let work: string;

beforeAll(async () => {
  cp = await startControlPlane();
  work = mkdtempSync(join(tmpdir(), "meshplane-cli-pack-"));
}, 60_000);

afterAll(async () => {
  await cp?.stop();
});

it("packs into a tarball with only the bundle, installs with no dependencies, and runs from anywhere", async () => {
  // Packed from a copy, so the repository's packages/cli/dist is left alone.
  const pkg = join(work, "pkg");
  cpSync(join(ROOT, "packages/cli/package.json"), join(pkg, "package.json"));
  execFileSync(process.execPath, [join(ROOT, "node_modules/tsx/dist/cli.mjs"), join(ROOT, "scripts/build-cli.ts"), join(pkg, "dist")], { stdio: "pipe" });
  const packed = JSON.parse(
    execFileSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", work], { cwd: pkg, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }),
  ) as { filename: string; files: { path: string }[] }[];
  const files = packed[0]?.files.map((f) => f.path) ?? [];
  expect(files).toContain("dist/meshplane.mjs");
  expect(files.filter((f) => !f.startsWith("dist/") && f !== "package.json")).toEqual([]);

  const prefix = join(work, "prefix");
  const install = spawnSync(
    "npm",
    ["install", "--global", "--prefix", prefix, "--offline", "--no-audit", "--no-fund", join(work, packed[0]?.filename as string)],
    { encoding: "utf8" },
  );
  expect(install.status, install.stderr).toBe(0);
  // Nothing came along: the bundle is the whole program.
  expect(readdirSync(join(prefix, "lib/node_modules"))).toEqual(["@meshplane"]);
  expect(readdirSync(join(prefix, "lib/node_modules/@meshplane/cli"))).not.toContain("node_modules");

  const bin = join(prefix, "bin", "meshplane");
  const env = { PATH: process.env.PATH, HOME: work, MESHPLANE_CONFIG: join(work, "config.json"), NO_COLOR: "1" } as NodeJS.ProcessEnv;
  const { version } = JSON.parse(readFileSync(join(ROOT, "packages/cli/package.json"), "utf8")) as { version: string };
  expect(execFileSync(bin, ["--version"], { env, cwd: work, encoding: "utf8" }).trim()).toBe(version);

  const admin = await cp.tenant("packed");
  // Asynchronously: the control plane answers from this process's event loop.
  const run = (args: string[], input = "") =>
    new Promise<{ status: number | null; stdout: string }>((resolve, reject) => {
      const child = spawn(bin, args, { env, cwd: work });
      let stdout = "";
      child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
      child.once("error", reject);
      child.once("close", (status) => resolve({ status, stdout }));
      child.stdin.end(input);
    });
  expect((await run(["login", "--url", cp.url, "--name", "packed"], admin)).status).toBe(0);
  const applied = await run(
    ["apply", "-f", "-"],
    "apiVersion: meshplane.dev/v1\nkind: TrafficPolicy\nmetadata: {name: from-tarball}\nspec:\n  policy: {requestTimeout: 1s}\n",
  );
  expect(applied.stdout).toBe("trafficpolicies/from-tarball created\n");
  expect((await run(["get", "tp", "-o", "name"])).stdout).toBe("trafficpolicies/from-tarball\n");
}, 120_000);
