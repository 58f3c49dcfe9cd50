/** `import gloo`: Gloo Mesh v1 YAML in, meshplane documents out (stdout), what was not carried over on stderr. */
import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { UsageError } from "../config";
import { formatDocuments, formatReport, importGloo } from "../import/gloo";
import { colours } from "../output";
import { optionsOf, readStdin, streamsOf } from "../runtime";

export async function gloo(_o: unknown, command: Command): Promise<number> {
  const o = optionsOf<{ filename: string[]; strict?: boolean }>(command);
  if (o.filename.length === 0) throw new UsageError("name the Gloo Mesh YAML with -f FILE (or -f - for standard input)");
  const streams = streamsOf();
  const c = colours(streams.err, streams.env);
  const text = o.filename
    .map((f) => {
      if (f === "-") return readStdin();
      try {
        return readFileSync(f, "utf8");
      } catch {
        throw new UsageError(`${f}: cannot read it`);
      }
    })
    .join("\n---\n");
  const result = importGloo(text);
  streams.out.write(formatDocuments(result.documents));
  const report = formatReport(result);
  if (report.length > 0) streams.err.write(c.yellow(report));
  streams.err.write(`${result.documents.length} document(s) converted, ${result.dropped.length} field(s) not carried over, ${result.errors.length} error(s)\n`);
  return result.errors.length > 0 || (o.strict === true && result.dropped.length > 0) ? 1 : 0;
}
