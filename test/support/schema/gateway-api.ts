import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { Ajv } from "ajv";
import type { SmiSchema } from "./smi";
import type { StructuralSchema } from "./structural";

/**
 * The Gateway API CRDs scripts/lab/build.sh caches, of the version Istio requires: a JSON array of
 * CRDs per channel under `${MESHPLANE_CACHE:-~/.cache/meshplane}/lab/crds` — the standard channel
 * (which the lab's kube-apiservers serve) and the experimental one. Not committed; run
 * `scripts/lab/build.sh` once.
 */
export const GATEWAY_API_VERSION = "v1.6.0";

export type GatewayApiChannel = "standard" | "experimental";

interface Crd {
  spec: { group: string; names: { kind: string }; versions: { name: string; served: boolean; schema?: { openAPIV3Schema?: StructuralSchema } }[] };
}

const FILES: Record<GatewayApiChannel, string> = {
  standard: `gateway-api-${GATEWAY_API_VERSION}.json`,
  experimental: `gateway-api-experimental-${GATEWAY_API_VERSION}.json`,
};

const raw = new Map<GatewayApiChannel, Map<string, StructuralSchema>>();
const compiled = new Map<string, SmiSchema>();
const ajv = new Ajv({ allErrors: true, strict: false, verbose: true });

/** The served kinds' schemas of `channel`, uncompiled, keyed `<group>/<version>/<kind>`. */
function rawSchemas(channel: GatewayApiChannel): Map<string, StructuralSchema> {
  const known = raw.get(channel);
  if (known) return known;
  const file = join(process.env.MESHPLANE_CACHE ?? join(homedir(), ".cache/meshplane"), "lab/crds", FILES[channel]);
  let crds: Crd[];
  try {
    crds = JSON.parse(readFileSync(file, "utf8")) as Crd[];
  } catch (error) {
    throw new Error(`Gateway API ${channel} CRDs not cached at ${file}: run scripts/lab/build.sh`, { cause: error });
  }
  const schemas = new Map<string, StructuralSchema>();
  for (const crd of crds) {
    for (const version of crd.spec.versions) {
      const schema = version.schema?.openAPIV3Schema;
      if (version.served && schema) schemas.set(`${crd.spec.group}/${version.name}/${crd.spec.names.kind}`, schema);
    }
  }
  raw.set(channel, schemas);
  return schemas;
}

/**
 * The schema of a served Gateway API kind (`<group>/<version>/<kind>`) in `channel`, compiled on
 * first use; undefined when the channel does not serve it. Throws when the lab's cache has not been
 * built: tests relying on it must not pass without it.
 */
export function gatewayApiSchema(key: string, channel: GatewayApiChannel = "standard"): SmiSchema | undefined {
  const id = `${channel} ${key}`;
  const known = compiled.get(id);
  if (known) return known;
  const schema = rawSchemas(channel).get(key);
  if (schema === undefined) return undefined;
  const made = { schema, validate: ajv.compile(schema) };
  compiled.set(id, made);
  return made;
}

/** Whether `<apiVersion>` is a Gateway API group. */
export function isGatewayApiGroup(apiVersion: string): boolean {
  return apiVersion.startsWith("gateway.networking.k8s.io/");
}

type Rules = { spec?: { rules?: Record<string, unknown>[] } };

/** Whether an HTTPRoute's rules set `retry`, which only the experimental channel has (Gateway API v1.6.0). */
function hasRetry(object: object): boolean {
  return ((object as Rules).spec?.rules ?? []).some((r) => r.retry !== undefined);
}

/** The object without its experimental-channel fields (HTTPRoute rules' `retry`). */
function standardPart(object: object): object {
  const rules = (object as Rules).spec?.rules;
  if (rules === undefined) return object;
  const spec = { ...(object as Rules).spec, rules: rules.map(({ retry: _retry, ...rest }) => rest) };
  return { ...object, spec };
}

/**
 * What to check a Gateway API object against (docs/ambient.md#retries-and-the-crd-channel): the
 * standard channel without the experimental fields meshplane writes (so nothing else may need the
 * experimental channel), and, when it writes one (an HTTPRoute rule's `retry`), the experimental
 * channel in full, the one a cluster needs for it. An unserved kind is left out (no schema).
 */
export function gatewayApiChecks(object: { apiVersion: string; kind: string }): { channel: GatewayApiChannel; schema: SmiSchema; object: object }[] {
  const key = `${object.apiVersion}/${object.kind}`;
  const standard = gatewayApiSchema(key, "standard");
  if (standard === undefined) return [];
  const checks: { channel: GatewayApiChannel; schema: SmiSchema; object: object }[] = [{ channel: "standard", schema: standard, object: standardPart(object) }];
  const experimental = hasRetry(object) ? gatewayApiSchema(key, "experimental") : undefined;
  if (experimental !== undefined) checks.push({ channel: "experimental", schema: experimental, object });
  return checks;
}
