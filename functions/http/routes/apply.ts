import { DOCUMENT_SCHEMAS, type FieldError, USER_KINDS, type UserDocument, type UserKind, ValidationError, fieldErrors, resourceKeyOf } from "@meshplane/core/base";
import type { DocumentWrite } from "../../store/index";
import { enqueueTranslate } from "../enqueue";
import { DOCUMENT_BODY_TYPES, route } from "../route";
import { applyBody, applyBodyDoc, applyResult } from "../schemas";
import { guardRootChange } from "./certificates";
import type { ResourceDeps } from "./resources";

/**
 * Validates every document and returns the writes, or throws one ValidationError naming every bad
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
    const parsed = DOCUMENT_SCHEMAS[kind as UserKind].safeParse(raw);
    if (!parsed.success) {
      errors.push(...fieldErrors(parsed.error, prefix));
      return;
    }
    const doc = parsed.data as UserDocument;
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

/** `POST /v1/apply`: create-or-replace many documents atomically, a result per document. */
export function applyRoutes(deps: ResourceDeps) {
  return [
    route({
      method: "post", path: "/v1/apply", tag: "apply", access: "editor",
      summary: "Create or replace up to 99 documents in one atomic change (JSON {documents} or multi-document YAML)",
      body: applyBody,
      bodyDoc: applyBodyDoc,
      bodyTypes: DOCUMENT_BODY_TYPES,
      responses: {
        200: { description: "a result per document, in order", schema: applyResult },
        412: { description: "a document's metadata.resourceVersion is stale (it acts as If-Match); nothing was applied" },
      },
      handler: async (c, { body }) => {
        const writes = await Promise.all(validateDocuments(body.documents).map((w) => guardRootChange(deps.store, c.get("tenantId"), c.get("principal"), w)));
        const results = await deps.store.resources.write(c.get("tenantId"), writes, deps.now().toISOString());
        await enqueueTranslate(deps.queue, c.get("log"), c.get("tenantId"), results.find((r) => r.revision !== undefined)?.revision);
        return c.json({
          results: results.map((r) => ({
            kind: r.resource.kind,
            name: r.resource.metadata.name,
            action: r.action,
            generation: r.resource.metadata.generation,
            resourceVersion: r.resource.metadata.resourceVersion,
          })),
        });
      },
    }),
  ];
}
