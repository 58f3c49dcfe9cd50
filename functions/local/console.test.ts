import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { withConsole } from "./console";

const dir = mkdtempSync(join(tmpdir(), "meshplane-console-"));
mkdirSync(join(dir, "assets", "nested"), { recursive: true });
writeFileSync(join(dir, "index.html"), "<!doctype html>");
writeFileSync(join(dir, "assets", "app-1234.js"), "export {};");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const api = () => new Response("api", { status: 200 });
const serve = withConsole(api, dir);
const get = (path: string, method = "GET") => serve(new Request(`http://127.0.0.1${path}`, { method }));

async function expectProblem(res: Response, status: number, detail: RegExp): Promise<void> {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toBe("application/problem+json");
  expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
  const body = (await res.json()) as { status: number; title: string; detail: string };
  expect(body.status).toBe(status);
  expect(body.title).toBeTruthy();
  expect(body.detail).toMatch(detail);
}

describe("the local console's files", () => {
  it("serves index.html and hashed assets", async () => {
    const index = await get("/");
    expect(index.status).toBe(200);
    expect(index.headers.get("cache-control")).toBe("no-cache");
    const asset = await get("/assets/app-1234.js");
    expect(asset.status).toBe(200);
    expect(asset.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(asset.headers.get("cache-control")).toContain("immutable");
  });

  it("answers a directory with 404, not a failure", async () => {
    await expectProblem(await get("/assets/"), 404, /no console file at \/assets\//);
    await expectProblem(await get("/assets/nested"), 404, /no console file/);
    await expectProblem(await get("/assets/nested/"), 404, /no console file/);
  });

  it("answers malformed percent-encoding with 400 naming the path", async () => {
    await expectProblem(await get("/assets/%E0%A4%A"), 400, /not valid percent-encoding/);
    await expectProblem(await get("/assets/%"), 400, /percent-encoding/);
  });

  it("answers missing files, NUL bytes and escapes from the directory with 404", async () => {
    await expectProblem(await get("/assets/missing.js"), 404, /no console file/);
    await expectProblem(await get("/assets/a%00b.js"), 404, /no console file/);
    await expectProblem(await get("/assets/..%2f..%2f..%2fetc%2fpasswd"), 404, /no console file/);
  });

  it("refuses other methods with 405 and Allow", async () => {
    const res = await get("/assets/app-1234.js", "POST");
    expect(res.headers.get("allow")).toBe("GET, HEAD");
    await expectProblem(res, 405, /GET/);
  });

  it("says how to build a console that is not built", async () => {
    const empty = mkdtempSync(join(tmpdir(), "meshplane-console-empty-"));
    try {
      await expectProblem(await withConsole(api, empty)(new Request("http://127.0.0.1/")), 404, /not built/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it("hands every other path to the API", async () => {
    expect(await (await get("/v1/clusters")).text()).toBe("api");
  });
});
