import {
  DOCUMENT_SCHEMAS,
  type FieldError,
  USER_KINDS,
  type UserDocument,
  type UserKind,
  ValidationError,
  fieldErrors,
  resourceKeyOf,
} from "@meshplane/core/base";
import type { DocumentWrite } from "../store/index";

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
