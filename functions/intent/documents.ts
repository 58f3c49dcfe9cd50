import {
  DOCUMENT_SCHEMAS,
  type FieldError,
  USER_KINDS,
  type UserDocument,
  type UserKind,
  ValidationError,
  fieldErrors,
  parseAuthoredName,
  resourceKeyOf,
} from "@meshplane/core/base";
import type { DocumentWrite } from "../store/index";

/**
 * Where `name` of `kind` comes from when it is a resource authored in a cluster
 * (docs/gitops.md#names-and-sources): `<kind> <namespace>/<name> in cluster <cluster>`, the custom
 * resource to change instead; undefined for a name the API gives.
 */
export function authoredOrigin(kind: UserKind, name: string): string | undefined {
  const source = parseAuthoredName(name);
  return source === undefined ? undefined : `${kind} ${source.namespace}/${source.name} in cluster ${source.cluster}`;
}

/**
 * `raw` as a document of `kind`, or every field at fault under `prefix`. A name that is an authored
 * resource's — a document read back from the API and sent again — says so instead of only that it is
 * not a DNS label: such a resource is changed in its cluster.
 */
export function parseDocument(kind: UserKind, raw: unknown, prefix: string): { doc: UserDocument } | { errors: FieldError[] } {
  const parsed = DOCUMENT_SCHEMAS[kind].safeParse(raw);
  if (parsed.success) return { doc: parsed.data as UserDocument };
  // Any JSON reaches here, null and arrays too: read the name only from an object.
  const name = (raw as { metadata?: { name?: unknown } } | null)?.metadata?.name;
  const origin = typeof name === "string" ? authoredOrigin(kind, name) : undefined;
  const namePath = prefix === "" ? "metadata.name" : `${prefix}.metadata.name`;
  const errors = fieldErrors(parsed.error, prefix).map((e) =>
    origin !== undefined && e.path === namePath
      ? {
          path: e.path,
          message: `${name} is a resource authored in a cluster, read-only through the API: change the custom resource ${origin} instead, or give a name without dots to create one through the API (docs/gitops.md#names-and-sources)`,
        }
      : e,
  );
  return { errors };
}

/**
 * The documents of `POST /v1/apply` and `POST /v1/plan` (a JSON array or multi-document YAML, already
 * read): validates every document and returns the writes, or throws one ValidationError naming every bad
 * field as `documents[i].<path>` — nothing is stored unless all documents are valid.
 */
export function validateDocuments(documents: unknown[]): DocumentWrite[] {
  const errors: FieldError[] = [];
  const writes: DocumentWrite[] = [];
  const seen = new Map<string, number>();
  documents.forEach((raw, i) => {
    const prefix = `documents[${i}]`;
    const kind = (raw as { kind?: unknown } | null)?.kind;
    if (typeof kind !== "string" || !Object.hasOwn(USER_KINDS, kind)) {
      errors.push({ path: `${prefix}.kind`, message: `must be one of ${Object.keys(USER_KINDS).join(", ")}` });
      return;
    }
    const parsed = parseDocument(kind as UserKind, raw, prefix);
    if ("errors" in parsed) {
      errors.push(...parsed.errors);
      return;
    }
    const doc = parsed.doc;
    const id = resourceKeyOf(doc);
    const first = seen.get(id);
    if (first !== undefined) {
      errors.push({ path: `${prefix}.metadata.name`, message: `${id} also appears in documents[${first}]` });
      return;
    }
    seen.set(id, i);
    writes.push({ doc, mode: "apply", ...(doc.metadata.resourceVersion !== undefined ? { ifMatch: doc.metadata.resourceVersion } : {}) });
  });
  if (errors.length > 0) throw new ValidationError(`${errors.length} problem(s) in the documents; nothing was applied`, errors);
  return writes;
}
