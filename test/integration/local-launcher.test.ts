import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../../functions/local/dynamo-local";
import { adminTokenOf, launch, operatorTokenOf, waitFor } from "../support/launcher";

/** `npm start` as a newcomer runs it: the real launcher process, its output, its shutdown. */
const dataDir = mkdtempSync(join(tmpdir(), "meshplane-launcher-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe("local launcher", () => {
  it("starts, prints credentials once, serves them, stops on SIGINT and reuses its state", async () => {
    const port = await freePort();
    const first = launch(["--data-dir", dataDir, "--port", String(port)]);
    await waitFor(first, "try: curl");
    const adminToken = adminTokenOf(first.output());
    const operatorToken = operatorTokenOf(first.output());
    expect(adminToken).toBeDefined();
    const url = `http://127.0.0.1:${port}`;
    const created = await fetch(`${url}/v1/trafficpolicies`, {
      method: "POST",
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ apiVersion: "meshplane.dev/v1", kind: "TrafficPolicy", metadata: { name: "kept" }, spec: { policy: { requestTimeout: "5s" } } }),
    });
    expect(created.status).toBe(201);
    expect((await fetch(`${url}/v1/tenants`, { headers: { authorization: `Bearer ${operatorToken}` } })).status).toBe(200);
    first.child.kill("SIGINT");
    expect(await first.exit).toBe(0);

    const second = launch(["--data-dir", dataDir, "--port", String(port)]);
    await waitFor(second, "using the credentials printed on first start");
    expect(second.output()).not.toContain("mpt_");
    const kept = await fetch(`${url}/v1/trafficpolicies/kept`, { headers: { authorization: `Bearer ${adminToken}` } });
    expect(kept.status).toBe(200);
    second.child.kill("SIGTERM");
    expect(await second.exit).toBe(0);
  });

  it("says in one line what to install when Java is missing", async () => {
    const run = launch(["--in-memory"], { ...process.env, PATH: "/nonexistent" });
    expect(await run.exit).toBe(1);
    expect(
      run
        .output()
        .trim()
        .split("\n")
        .filter((l) => !/NodeVersion|versions published|will require|continue receiving|security updates|More information|trace-warnings|^$/.test(l)),
    ).toEqual([expect.stringContaining("needs Java 17 or newer for DynamoDB Local: install it")]);
  });
});
