import { MAX_AGENT_TOKEN_SECONDS } from "@meshplane/core";
import { type JWK, decodeJwt, exportJWK, generateKeyPair } from "jose";
import { describe, expect, it } from "vitest";
import { ControlPlaneClient } from "./client";

const INCARNATION = "7d9e1f20-3a4b-4c5d-9e8f-1a2b3c4d5e6f";
const JWK = { kty: "EC", crv: "P-256", x: "x", y: "y" };
const answering =
  (body: unknown): typeof fetch =>
  async () =>
    new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json" } });
const register = (body: unknown) => ControlPlaneClient.register("https://cp.example.com", "mpb_token", JWK, "test", answering(body));

describe("the register answer", () => {
  it.each<[string, unknown, unknown]>([
    [
      "with the cluster's incarnation",
      { tenant: "acme", cluster: "east", incarnation: INCARNATION },
      { tenant: "acme", cluster: "east", incarnation: INCARNATION },
    ],
    ["of a cluster created before incarnations", { tenant: "acme", cluster: "east" }, { tenant: "acme", cluster: "east" }],
    [
      "with a field a newer control plane added",
      { tenant: "acme", cluster: "east", incarnation: INCARNATION, region: "eu" },
      { tenant: "acme", cluster: "east", incarnation: INCARNATION },
    ],
  ])("%s is what the agent keeps", async (_what, body, kept) => {
    expect(await register(body)).toEqual(kept);
  });

  it.each<[string, unknown]>([
    ["an incarnation that is not one", { tenant: "acme", cluster: "east", incarnation: "../other" }],
    ["no cluster", { tenant: "acme", incarnation: INCARNATION }],
  ])("%s is refused as a 502", async (_what, body) => {
    await expect(register(body)).rejects.toMatchObject({ status: 502 });
  });
});

describe("the push channel's token", () => {
  it("is bound to GET and as long as the control plane accepts: the channel lasts until it expires", async () => {
    const { privateKey, publicKey } = await generateKeyPair("ES256");
    const key = { privateKey, publicJwk: (await exportJWK(publicKey)) as JWK };
    const client = new ControlPlaneClient({ url: "https://cp.example.com", tenant: "acme", cluster: "east", key });
    const claims = decodeJwt(await client.pushToken());
    expect(claims).toMatchObject({ htm: "GET", sub: "east", tenant: "acme", aud: "https://cp.example.com" });
    expect((claims.exp as number) - (claims.iat as number)).toBe(MAX_AGENT_TOKEN_SECONDS);
    // A call's token stays short.
    const call = decodeJwt(await client.token("GET"));
    expect((call.exp as number) - (call.iat as number)).toBe(60);
  });
});
