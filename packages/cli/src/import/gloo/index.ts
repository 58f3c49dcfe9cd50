/**
 * Converts Gloo Mesh v1 (networking.mesh.gloo.solo.io/v1) VirtualMesh, TrafficPolicy and
 * AccessPolicy YAML into meshplane documents. Every Gloo field is either converted, ignored on
 * purpose (server-set metadata, status) or listed in `dropped` with what to do instead; the
 * field-by-field table is docs/import-gloo.md.
 *
 * One module per step: `document.ts` reads one document (with `conversion.ts`, the reading of one
 * Gloo object), `selectors.ts`, `kinds.ts`, `traffic-policy.ts` and `virtual-mesh.ts` convert its
 * parts, `names.ts` names and validates the documents together, `report.ts` prints the result.
 */
import { parseAllDocuments } from "yaml";
import { isRecord } from "./conversion";
import { type Converted, type Failure, convertDocument } from "./document";
import { assignNames, finish } from "./names";
import type { GlooImport } from "./report";

export { GLOO_API_VERSION } from "./document";
export { type Dropped, type GlooImport, type ImportError, type MeshplaneDocument, formatDocuments, formatReport } from "./report";

/**
 * Converts the multi-document YAML `text`. Pure: the same text gives the same result. A document that
 * is not Gloo Mesh v1 networking YAML, does not parse, or would not be a valid meshplane resource is
 * an entry in `errors` (the fields it could not carry over are in `dropped` all the same) and the rest
 * are still converted; `kind: List` documents are read item by item.
 * Names follow the rule in docs/import-gloo.md: the Gloo name made a DNS label, and when two
 * documents of one kind share it, each becomes `<name>-<namespace>`.
 */
export function importGloo(text: string): GlooImport {
  const converted: Converted[] = [];
  const failures: Failure[] = [];
  parseAllDocuments(text).forEach((doc, i) => {
    const where = `documents[${i}]`;
    const problem = doc.errors[0];
    if (problem) {
      failures.push({ document: where, message: `not valid YAML: ${problem.message.split("\n")[0]}`, dropped: [] });
      return;
    }
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) return; // an empty document, e.g. after a trailing ---
    const items =
      isRecord(value) && typeof value.kind === "string" && value.kind.endsWith("List") && Array.isArray(value.items)
        ? value.items.map((item, j) => ({ item: item as unknown, where: `${where}.items[${j}]` }))
        : [{ item: value, where }];
    for (const { item, where: at } of items) {
      const result = convertDocument(item, at);
      if ("message" in result) failures.push(result);
      else converted.push(result);
    }
  });
  return finish(assignNames(converted, failures), failures);
}
