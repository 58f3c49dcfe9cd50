/** Reading the documents `apply -f` and `delete -f` name: files, directories (with -R, recursively) or stdin. */
import { readFileSync, readdirSync, statSync } from "node:fs";
import { extname, join } from "node:path";
import { parseAllDocuments } from "yaml";
import { UsageError } from "./config";

export interface SourceDocument {
  /** Where it came from, for messages: `file.yaml#2`. */
  source: string;
  doc: Record<string, unknown>;
}

const EXTENSIONS = new Set([".yaml", ".yml", ".json"]);

function filesOf(path: string, recursive: boolean): string[] {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    throw new UsageError(`${path}: no such file or directory`);
  }
  if (!stat.isDirectory()) return [path];
  return readdirSync(path, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((e) => {
      const full = join(path, e.name);
      if (e.isDirectory()) return recursive ? filesOf(full, true) : [];
      return EXTENSIONS.has(extname(e.name)) ? [full] : [];
    });
}

/** Parses multi-document YAML (JSON is YAML); every document must be a mapping. */
export function parseDocuments(text: string, name: string): SourceDocument[] {
  const out: SourceDocument[] = [];
  parseAllDocuments(text).forEach((d, i) => {
    const where = `${name}#${i + 1}`;
    if (d.errors.length > 0) throw new UsageError(`${where}: ${d.errors[0]?.message.split("\n")[0]}`);
    let value: unknown;
    try {
      value = d.toJS({ maxAliasCount: 100 });
    } catch (error) {
      throw new UsageError(`${where}: ${(error as Error).message}`);
    }
    if (value === null || value === undefined) return; // an empty document (a trailing ---)
    if (typeof value !== "object" || Array.isArray(value))
      throw new UsageError(`${where}: a document must be a mapping with apiVersion, kind, metadata and spec`);
    out.push({ source: where, doc: value as Record<string, unknown> });
  });
  return out;
}

export function readDocuments(paths: string[], recursive: boolean, stdin: () => string): SourceDocument[] {
  if (paths.length === 0) throw new UsageError("name what to read with -f FILE, -f DIR or -f - (standard input)");
  return paths.flatMap((p) =>
    p === "-" ? parseDocuments(stdin(), "(stdin)") : filesOf(p, recursive).flatMap((f) => parseDocuments(readFileSync(f, "utf8"), f)),
  );
}
