/**
 * What docs/api.md says about caching, against the real API on DynamoDB Local: every answer is
 * `no-store` except the JWKS, whose header the docs quote exactly.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ControlPlane, startControlPlane } from "../support/control-plane";

let cp: ControlPlane;
let admin: string;

beforeAll(async () => {
  cp = await startControlPlane();
  admin = await cp.tenant("cache");
});
afterAll(() => cp.stop());

const apiDoc = readFileSync(new URL("../../docs/api.md", import.meta.url), "utf8").replace(/\s+/g, " ");

describe("Cache-Control", () => {
  it("the JWKS may be cached, and docs/api.md gives its header as it is", async () => {
    const res = await cp.request("GET", "/.well-known/jwks.json");
    expect(res.status).toBe(200);
    const header = res.headers.get("cache-control");
    expect(header).toMatch(/^public, max-age=\d+$/);
    expect(apiDoc).toContain(`The one is the JWKS (\`GET /.well-known/jwks.json\`), public keys that any cache may keep: \`Cache-Control: ${header}\`.`);
  });

  it.each([
    ["GET", "/healthz", undefined],
    ["GET", "/openapi.json", undefined],
    ["GET", "/v1/tokens", "admin"],
    ["GET", "/v1/trafficpolicies", "admin"],
    ["GET", "/v1/nothing-here", "admin"],
    ["GET", "/v1/tokens", undefined],
  ] as const)("%s %s (%s) is no-store", async (method, path, who) => {
    const res = await cp.request(method, path, who ? { token: admin } : {});
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(apiDoc).toContain("every answer but one carries `Cache-Control: no-store`");
  });
});
