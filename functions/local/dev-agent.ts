/**
 * `npm run dev-agent -- <command>`: play a cluster's agent by hand against a control plane, for
 * trying the pipeline with curl. It speaks the real agent protocol with the real agent client.
 *
 *   register --url URL --bootstrap-token mpb_…     make a key, register it, keep it under .meshplane/dev-agents/
 *   token --cluster NAME                            print a fresh agent JWT (60 s) for curl
 *   discover --cluster NAME FILE.yaml               print the discovery report of Kubernetes objects in FILE
 *   snapshot --cluster NAME                         fetch the snapshot, verify it against the JWKS, print it
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { discover, groupClusterObjects, snapshotAudience, verifySnapshot } from "@meshplane/core";
import { type CryptoKey, type JWK, exportJWK, generateKeyPair, importJWK } from "jose";
import { parseAllDocuments } from "yaml";
import { ControlPlaneClient } from "@meshplane/agent";

interface Saved {
  url: string;
  tenant: string;
  cluster: string;
  /** The cluster's incarnation from the register answer; absent for a cluster created before them. */
  incarnation?: string;
  privateJwk: JWK;
  publicJwk: JWK;
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { url: { type: "string" }, "bootstrap-token": { type: "string" }, cluster: { type: "string" }, tenant: { type: "string" }, dir: { type: "string" } },
});
const dir = resolve(values.dir ?? ".meshplane/dev-agents");

function load(): Saved {
  const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".json")) : [];
  const matches = files
    .map((f) => JSON.parse(readFileSync(join(dir, f), "utf8")) as Saved)
    .filter((s) => s.cluster === values.cluster && (!values.tenant || s.tenant === values.tenant));
  if (matches.length !== 1)
    throw new Error(`no single registered dev agent for --cluster ${values.cluster ?? "?"}${values.tenant ? ` --tenant ${values.tenant}` : ""} in ${dir}`);
  return matches[0] as Saved;
}

async function client(saved: Saved): Promise<ControlPlaneClient> {
  const privateKey = (await importJWK(saved.privateJwk, "ES256")) as CryptoKey;
  return new ControlPlaneClient({ url: saved.url, tenant: saved.tenant, cluster: saved.cluster, key: { privateKey, publicJwk: saved.publicJwk } });
}

async function main(): Promise<void> {
  const [command, file] = positionals;
  switch (command) {
    case "register": {
      if (!values.url || !values["bootstrap-token"]) throw new Error("register needs --url and --bootstrap-token");
      const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
      const publicJwk = await exportJWK(publicKey);
      const { tenant, cluster, incarnation } = await ControlPlaneClient.register(values.url, values["bootstrap-token"], publicJwk, "dev-agent");
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const path = join(dir, `${tenant}-${cluster}.json`);
      writeFileSync(
        path,
        JSON.stringify(
          { url: values.url, tenant, cluster, ...(incarnation ? { incarnation } : {}), privateJwk: await exportJWK(privateKey), publicJwk } satisfies Saved,
          null,
          2,
        ),
        { mode: 0o600 },
      );
      chmodSync(path, 0o600);
      console.log(`registered as ${tenant}/${cluster}; key kept in ${path}`);
      return;
    }
    case "token":
      console.log(await (await client(load())).token());
      return;
    case "discover": {
      if (!file) throw new Error("discover needs a YAML file of Kubernetes objects");
      const objects = parseAllDocuments(readFileSync(file, "utf8"))
        .map((d) => d.toJS() as unknown)
        .filter((o) => o !== null);
      const result = discover(groupClusterObjects(load().cluster, objects));
      console.log(JSON.stringify({ ...result, hash: "dev-agent" }));
      return;
    }
    case "snapshot": {
      const saved = load();
      const answer = await (await client(saved)).snapshot();
      if (!answer.changed || !answer.jws) return void console.log("no snapshot yet");
      const jwks = (await (await fetch(`${saved.url}/.well-known/jwks.json`)).json()) as { keys: JWK[] };
      const payload = await verifySnapshot(answer.jws, {
        trustedKeys: jwks.keys,
        audience: snapshotAudience(saved.tenant, saved.cluster, saved.incarnation),
        lastGeneration: 0,
        now: new Date(),
      });
      console.log(JSON.stringify(payload, null, 2));
      return;
    }
    default:
      throw new Error("usage: dev-agent register|token|discover|snapshot (see the header of functions/local/dev-agent.ts)");
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
