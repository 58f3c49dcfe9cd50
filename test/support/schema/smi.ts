import { execFileSync } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv, type ValidateFunction } from "ajv";
import { parseAllDocuments } from "yaml";
import { type AjvIssue, describeAjvErrors } from "./errors";
import type { StructuralSchema } from "./structural";

/**
 * Where the SMI CRDs come from: the ones OSM v1.2 installs (docs/resources.md#agent-protocol pins
 * the SMI versions it serves). They are not committed; the Go module proxy serves the OSM source, checksummed against
 * sum.golang.org, and the Go module cache keeps it between runs.
 */
export const OSM_MODULE = "github.com/openservicemesh/osm";
export const OSM_VERSION = "v1.2.4";
const CRD_DIR = "cmd/osm-bootstrap/crds";

interface CustomResourceDefinition {
  kind: string;
  spec: {
    group: string;
    names: { kind: string };
    versions: { name: string; served: boolean; schema?: { openAPIV3Schema?: StructuralSchema } }[];
  };
}

/** One served SMI kind version: its CRD schema, and a compiled validator of it. */
export interface SmiSchema {
  schema: StructuralSchema;
  validate: ValidateFunction;
}

/** `go mod download` of the OSM module; returns the directory of its extracted source. */
function osmSourceDir(): string {
  const what = `go mod download ${OSM_MODULE}@${OSM_VERSION}`;
  let output: string;
  try {
    // Run outside the repository so no go.mod or go.work there can change what is resolved.
    output = execFileSync("go", ["mod", "download", "-json", `${OSM_MODULE}@${OSM_VERSION}`], {
      cwd: tmpdir(),
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (error) {
    const failure = error as { code?: string; stdout?: string; stderr?: string };
    if (failure.code === "ENOENT") throw new Error(`${what}: the go command is not installed`, { cause: error });
    // On failure go still prints the JSON, whose Error says why (offline, unknown version, ...).
    const reason = /"Error":\s*"([^"]*)"/.exec(failure.stdout ?? "")?.[1] ?? failure.stderr?.trim();
    throw new Error(`${what}: ${reason ?? "failed"}`, { cause: error });
  }
  const info = JSON.parse(output) as { Dir?: string; Error?: string };
  if (!info.Dir) throw new Error(`${what}: ${info.Error ?? "no Dir in output"}`);
  return info.Dir;
}

let cached: Map<string, SmiSchema> | undefined;

/**
 * The SMI CRD schemas, keyed `<group>/<version>/<kind>`, for the versions the CRDs *serve* (an object
 * of an unserved version is rejected by the API server, so it gets no schema). Downloads the OSM
 * module on first use (needs `go` and network or a warm module cache) and caches per process.
 * Throws when the download or a CRD file fails: tests relying on it must not pass without it.
 */
export function loadSmiSchemas(): Map<string, SmiSchema> {
  if (cached) return cached;
  const dir = join(osmSourceDir(), CRD_DIR);
  // strict: false because CRD schemas carry Kubernetes keywords (x-kubernetes-*) ajv does not know.
  const ajv = new Ajv({ allErrors: true, strict: false, verbose: true });
  const schemas = new Map<string, SmiSchema>();
  for (const file of readdirSync(dir)
    .filter((f) => f.startsWith("smi_") && f.endsWith(".yaml"))
    .toSorted()) {
    for (const doc of parseAllDocuments(readFileSync(join(dir, file), "utf8"))) {
      const crd = doc.toJS() as CustomResourceDefinition | null;
      if (crd?.kind !== "CustomResourceDefinition") continue;
      for (const version of crd.spec.versions) {
        const schema = version.schema?.openAPIV3Schema;
        if (!version.served || !schema) continue;
        schemas.set(`${crd.spec.group}/${version.name}/${crd.spec.names.kind}`, { schema, validate: ajv.compile(schema) });
      }
    }
  }
  if (schemas.size === 0) throw new Error(`no SMI CRDs found under ${dir}`);
  cached = schemas;
  return schemas;
}

/** Whether `<apiVersion>/<kind>` names an SMI group (whether or not a served version matches). */
export function isSmiGroup(apiVersion: string): boolean {
  return apiVersion.split("/")[0]?.endsWith(".smi-spec.io") === true;
}

/** Schema problems of an SMI object against its CRD schema, as readable `path: problem` lines. */
export function validateSmi(smi: SmiSchema, object: unknown): string[] {
  return smi.validate(object) ? [] : describeAjvErrors((smi.validate.errors ?? []) as AjvIssue[]);
}
