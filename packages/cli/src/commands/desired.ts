/**
 * The documents of `apply -f` and `diff -f` as the control plane would store them: the kind checked
 * first, then each document validated with core's schemas (the API's own, docs/resources.md#envelope)
 * so that bad input is said before anything is sent, and each resource's stored form — what `diff`
 * compares and what `--prune` keeps.
 */
import { DOCUMENT_SCHEMAS, type FieldError, type UserDocument, type UserKind, canonicalize, fieldErrors, resourceKeyOf } from "@meshplane/core";
import { UsageError } from "../config";
import type { SourceDocument } from "../documents";
import { type Item, kindOf, text } from "../kinds";

/** A document read from a file, valid, with where it came from and its `Kind/name`. */
export interface Desired {
  source: string;
  key: string;
  doc: UserDocument;
}

/** What a resource's stored form holds: the parts a user writes, without server fields or status. */
export interface StoredForm {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: unknown;
}

/** Refuses (UsageError) the first document whose kind is not a user resource's, naming its file and index. */
export function checkKinds(docs: readonly SourceDocument[]): void {
  for (const { source, doc } of docs) {
    const kind = typeof doc.kind === "string" ? kindOf(doc.kind) : undefined;
    if (kind === undefined || !kind.user)
      throw new UsageError(`${source}: kind must be VirtualMesh, TrafficPolicy or AccessPolicy, not ${JSON.stringify(doc.kind ?? null)}`);
  }
}

/** `file.yaml#2 TrafficPolicy/name field`: where a field error is, as the CLI prints it (docs/cli.md#output-and-exit-codes). */
export function fieldLocation(source: string, doc: Record<string, unknown>, path: string): string {
  const name = text((doc.metadata as Item["metadata"])?.name);
  return `${source} ${text(doc.kind)}/${name}${path === "" || path === "(root)" ? "" : ` ${path}`}`;
}

/**
 * Every document validated as `POST /v1/apply` validates it (core's DOCUMENT_SCHEMAS, each name once
 * per kind), with defaults filled in. Throws one UsageError naming every bad field by file, document
 * index, resource and field, and saying nothing was sent.
 */
export function validated(docs: readonly SourceDocument[]): Desired[] {
  checkKinds(docs);
  const problems: FieldError[] = [];
  const out: Desired[] = [];
  const seen = new Map<string, string>();
  for (const { source, doc } of docs) {
    const kind = kindOf(text(doc.kind))?.kind as UserKind;
    const parsed = DOCUMENT_SCHEMAS[kind].safeParse(doc);
    if (!parsed.success) {
      problems.push(...fieldErrors(parsed.error).map((e) => ({ path: fieldLocation(source, doc, e.path), message: e.message })));
      continue;
    }
    const valid = parsed.data as UserDocument;
    const key = resourceKeyOf(valid);
    const first = seen.get(key);
    if (first !== undefined) {
      problems.push({ path: fieldLocation(source, doc, "metadata.name"), message: `${key} also appears in ${first}` });
      continue;
    }
    seen.set(key, source);
    out.push({ source, key, doc: valid });
  }
  if (problems.length > 0)
    throw new UsageError(`${problems.length} problem(s) in the documents; nothing was sent\n${problems.map((p) => `  ${p.path}: ${p.message}`).join("\n")}`);
  return out;
}

const nonEmpty = (map: Record<string, string> | undefined) => (map !== undefined && Object.keys(map).length > 0 ? map : undefined);

/**
 * The stored form of a document or of a resource the API returned, keys in core's canonical order:
 * apiVersion, kind, name, labels and annotations (left out when empty, as core's nextStoredVersion
 * stores them) and spec. Server fields (uid, generation, resourceVersion, times, source) and status
 * are not part of it, so a document applied unchanged has the stored form of what is stored.
 */
export function storedForm(resource: { apiVersion?: unknown; kind?: unknown; metadata?: unknown; spec?: unknown }): StoredForm {
  const metadata = (resource.metadata ?? {}) as StoredForm["metadata"];
  const labels = nonEmpty(metadata.labels);
  const annotations = nonEmpty(metadata.annotations);
  return canonicalize({
    apiVersion: text(resource.apiVersion),
    kind: text(resource.kind),
    metadata: { name: text(metadata.name), ...(labels ? { labels } : {}), ...(annotations ? { annotations } : {}) },
    spec: resource.spec ?? {},
  });
}
