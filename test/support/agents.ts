import { discover } from "@meshplane/core";
import { randomUUID } from "node:crypto";
import { type JWK, SignJWT, calculateJwkThumbprint, exportJWK, generateKeyPair } from "jose";
import { join } from "node:path";
import { ControlPlaneClient } from "../../packages/agent/src/control-plane/client";
import { loadCluster } from "../discovery/load-cluster";
import type { ControlPlane } from "./control-plane";

export const FIXTURES = join(import.meta.dirname, "../discovery/fixtures");

/** An ES256 key pair as the agent makes one. */
export async function agentKey() {
  const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
  return { privateKey, publicJwk: (await exportJWK(publicKey)) as JWK };
}

/**
 * Registers `cluster` in the tenant through the API, then registers an agent for it with the
 * bootstrap token, exactly as the in-cluster agent does. Returns its client and the incarnation the
 * register answer named (what the agent keeps to verify snapshots).
 */
export async function registeredAgent(
  cp: ControlPlane,
  adminToken: string,
  tenant: string,
  cluster: string,
): Promise<{ client: ControlPlaneClient; key: Awaited<ReturnType<typeof agentKey>>; bootstrapToken: string; incarnation: string | undefined }> {
  const res = await cp.request("POST", "/v1/clusters", { token: adminToken, body: { name: cluster } });
  if (res.status !== 201) throw new Error(`register ${cluster}: ${res.status} ${await res.text()}`);
  const { bootstrapToken } = (await res.json()) as { bootstrapToken: string };
  const key = await agentKey();
  const { incarnation } = await ControlPlaneClient.register(cp.url, bootstrapToken, key.publicJwk, "test");
  return { client: new ControlPlaneClient({ url: cp.url, tenant, cluster, key, now: () => cp.clock.now }), key, bootstrapToken, incarnation };
}

/** What the agent of `cluster` would report for a discovery fixture. */
export function discoveryOf(fixture: string, cluster: string) {
  const result = discover(loadCluster(join(FIXTURES, `${fixture}.yaml`), cluster));
  return { ...result, hash: "agent-side-hash" };
}

/**
 * An agent JWT for GET signed with `key`, as the agent mints one but with the lifetime given (the
 * agent's own last 60 s; the control plane accepts up to 300): push-channel tests time its expiry.
 */
export async function agentGetToken(
  cp: ControlPlane,
  key: Awaited<ReturnType<typeof agentKey>>,
  tenant: string,
  cluster: string,
  lifetimeSeconds: number,
): Promise<string> {
  const now = Math.floor(cp.clock.now.getTime() / 1000);
  return new SignJWT({ tenant, htm: "GET" })
    .setProtectedHeader({ alg: "ES256", kid: await calculateJwkThumbprint(key.publicJwk) })
    .setIssuer("agent")
    .setSubject(cluster)
    .setAudience(cp.url)
    .setIssuedAt(now)
    .setExpirationTime(now + lifetimeSeconds)
    .setJti(randomUUID())
    .sign(key.privateKey);
}
