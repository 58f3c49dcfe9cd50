/**
 * `tsx test/support/schema/cli.ts [--strict] <file.yaml>...` validates every document of multi-doc
 * YAML files (say, a snapshot's objects dumped by `meshplane plan`) and exits 1 on any problem.
 */
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { parseAllDocuments } from "yaml";
import { validateGenerated } from "./index";

export interface CliResult {
  lines: string[];
  exitCode: 0 | 1 | 2;
}

interface Document {
  apiVersion?: unknown;
  kind?: unknown;
  metadata?: { name?: unknown; namespace?: unknown };
}

/**
 * Runs the command on `args` (without node and script), reading files with `read`. Returns the lines
 * to print and the exit code: 0 all valid, 1 problems found, 2 usage or unreadable input.
 */
export function runCli(args: readonly string[], read: (path: string) => string): CliResult {
  const strict = args.includes("--strict");
  const files = args.filter((a) => a !== "--strict");
  if (files.length === 0 || files.some((f) => f.startsWith("-"))) return { lines: ["usage: cli.ts [--strict] <file.yaml>..."], exitCode: 2 };
  const lines: string[] = [];
  let failed = false;
  for (const file of files) {
    for (const [index, doc] of parseAllDocuments(read(file)).entries()) {
      if (doc.errors.length > 0) return { lines: [...lines, `${file}: ${doc.errors[0]?.message}`], exitCode: 2 };
      const object = doc.toJS() as Document | null;
      if (object === null) continue;
      const where = `${file}#${index} ${String(object.kind)} ${String(object.metadata?.namespace ?? "")}/${String(object.metadata?.name ?? "")}`;
      if (typeof object.apiVersion !== "string" || typeof object.kind !== "string") {
        lines.push(`${where}: apiVersion and kind must be strings`);
        failed = true;
        continue;
      }
      for (const problem of validateGenerated({ ...object, apiVersion: object.apiVersion, kind: object.kind }, { strict })) {
        lines.push(`${where}: ${problem}`);
        failed = true;
      }
    }
  }
  return { lines, exitCode: failed ? 1 : 0 };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { lines, exitCode } = runCli(process.argv.slice(2), (path) => readFileSync(path, "utf8"));
  for (const line of lines) console.log(line);
  process.exitCode = exitCode;
}
