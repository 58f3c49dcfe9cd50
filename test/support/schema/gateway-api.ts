import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { Ajv } from "ajv";
import type { SmiSchema } from "./smi";
import type { StructuralSchema } from "./structural";

/**
 * The Gateway API CRDs the lab's kube-apiservers serve (standard channel of the version Istio
 * requires), as scripts/lab/build.sh caches them: a JSON array of CRDs under
 * `${MESHPLANE_CACHE:-~/.cache/meshplane}/lab/crds`. Not committed; run `scripts/lab/build.sh` once.
 */
export const GATEWAY_API_VERSION = "v1.6.0";

interface Crd {
  spec: { group: string; names: { kind: string }; versions: { name: string; served: boolean; schema?: { openAPIV3Schema?: StructuralSchema } }[] };
}

let cached: Map<string, SmiSchema> | undefined;

/**
 * The served Gateway API kinds' schemas, keyed `<group>/<version>/<kind>`. Throws when the lab's
 * cache has not been built: tests relying on it must not pass without it.
 */
export function loadGatewayApiSchemas(): Map<string, SmiSchema> {
  if (cached) return cached;
  const file = join(process.env.MESHPLANE_CACHE ?? join(homedir(), ".cache/meshplane"), "lab/crds", `gateway-api-${GATEWAY_API_VERSION}.json`);
  let crds: Crd[];
  try {
    crds = JSON.parse(readFileSync(file, "utf8")) as Crd[];
  } catch (error) {
    throw new Error(`Gateway API CRDs not cached at ${file}: run scripts/lab/build.sh`, { cause: error });
  }
  const ajv = new Ajv({ allErrors: true, strict: false, verbose: true });
  const schemas = new Map<string, SmiSchema>();
  for (const crd of crds) {
    for (const version of crd.spec.versions) {
      const schema = version.schema?.openAPIV3Schema;
      if (version.served && schema) schemas.set(`${crd.spec.group}/${version.name}/${crd.spec.names.kind}`, { schema, validate: ajv.compile(schema) });
    }
  }
  cached = schemas;
  return schemas;
}

/** Whether `<apiVersion>` is a Gateway API group. */
export function isGatewayApiGroup(apiVersion: string): boolean {
  return apiVersion.startsWith("gateway.networking.k8s.io/");
}
