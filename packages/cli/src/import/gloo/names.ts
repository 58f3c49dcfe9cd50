/** Names, validation, output: the naming rule across documents, then each document checked against meshplane's own schema. */
import { DOCUMENT_SCHEMAS, dnsSafeName, fieldErrors } from "@meshplane/core";
import { compact } from "./conversion";
import { type Converted, type Failure, describe } from "./document";
import type { Dropped, GlooImport, MeshplaneDocument } from "./report";

interface Named extends Converted {
  finalName: string;
}

/**
 * The naming rule: the Gloo name made a DNS label; when documents of one kind from different
 * namespaces share it, every one of them becomes `<name>-<namespace>` (so no document silently keeps
 * the plain name because it came first). A true duplicate (same kind, namespace and name), or a
 * suffixed name that is still taken, is an error on the later document.
 */
export function assignNames(converted: Converted[], failures: Failure[]): Named[] {
  const byBase = new Map<string, Converted[]>();
  for (const doc of converted) {
    const key = `${doc.kind}/${dnsSafeName(doc.name)}`;
    byBase.set(key, [...(byBase.get(key) ?? []), doc]);
  }
  const taken = new Map<string, Converted>();
  const named: Named[] = [];
  for (const doc of converted) {
    const base = dnsSafeName(doc.name);
    const clash = (byBase.get(`${doc.kind}/${base}`) ?? []).some((other) => other.namespace !== doc.namespace);
    const finalName = clash ? dnsSafeName(`${doc.name}-${doc.namespace ?? "default"}`) : base;
    const first = taken.get(`${doc.kind}/${finalName}`);
    if (first) {
      const label = describe(doc.kind, doc.name, doc.namespace, doc.where);
      failures.push({
        document: label,
        message: `meshplane name ${finalName} is already taken by ${describe(first.kind, first.name, first.namespace, first.where)}; rename one of them before importing`,
        dropped: doc.dropped,
      });
      continue;
    }
    taken.set(`${doc.kind}/${finalName}`, doc);
    named.push({ ...doc, finalName });
  }
  return named;
}

/**
 * Validates each document against meshplane's own schema; one that fails is an error, not output.
 * The fields of a failed document that were not carried over are reported all the same.
 */
export function finish(named: Named[], failures: Failure[]): GlooImport {
  const documents: MeshplaneDocument[] = [];
  const dropped: Dropped[] = [];
  for (const doc of named) {
    const label = describe(doc.kind, doc.name, doc.namespace, doc.where);
    const metadata = compact({ name: doc.finalName, labels: doc.labels });
    const result = DOCUMENT_SCHEMAS[doc.kind].safeParse({ apiVersion: "meshplane.dev/v1", kind: doc.kind, metadata, spec: doc.spec });
    if (!result.success) {
      const problems = fieldErrors(result.error).map((e) => `${e.path}: ${e.message}`);
      failures.push({ document: label, message: `the converted document is not a valid meshplane ${doc.kind}: ${problems.join("; ")}`, dropped: doc.dropped });
      continue;
    }
    documents.push(result.data);
    dropped.push(...doc.dropped.map((d) => ({ document: label, ...d })));
  }
  for (const f of failures) dropped.push(...f.dropped.map((d) => ({ document: f.document, ...d })));
  return { documents, dropped, errors: failures.map(({ document, message }) => ({ document, message })) };
}
