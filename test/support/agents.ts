import { discover } from "@meshplane/core";
import { type JWK, exportJWK, generateKeyPair } from "jose";
import { join } from "node:path";
import { ControlPlaneClient } from "../../packages/agent/src/client";
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
