/** What an import gives back, and how the CLI prints it: the documents as YAML, the report as lines. */
import type { UserDocument } from "@meshplane/core";
import { stringify } from "yaml";

export type MeshplaneDocument = UserDocument;
/** A Gloo field that was not carried over. `path` is the Gloo path, from the document root. */
export interface Dropped {
  document: string;
  path: string;
  reason: string;
}
/** A document that was not converted at all. */
export interface ImportError {
  document: string;
  message: string;
}
export interface GlooImport {
  documents: MeshplaneDocument[];
  dropped: Dropped[];
  errors: ImportError[];
}

/** The documents as YAML, one after another, ready for `meshplane apply -f`. */
export function formatDocuments(documents: readonly MeshplaneDocument[]): string {
  return documents.map((d) => `---\n${stringify(d, { aliasDuplicateObjects: false, lineWidth: 0, version: "1.1" })}`).join("");
}

/**
 * What a user reads after an import: one line per dropped field of the converted documents, then
 * each error, preceded by the fields its document could not carry over (often what caused it).
 */
export function formatReport(result: Pick<GlooImport, "dropped" | "errors">): string {
  const failed = new Set(result.errors.map((e) => e.document));
  const lines = [
    ...result.dropped.filter((d) => !failed.has(d.document)).map(droppedLine),
    ...result.errors.flatMap((e) => [...result.dropped.filter((d) => d.document === e.document).map(droppedLine), `${e.document}: error: ${e.message}`]),
  ];
  return lines.map((line) => `${line}\n`).join("");
}

function droppedLine(d: Dropped): string {
  return `${d.document}: ${d.path}: ${d.reason}`;
}
