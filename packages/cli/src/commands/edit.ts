/**
 * `edit KIND NAME`: the resource in $VISUAL/$EDITOR (vi when neither is set) as YAML — only what a
 * user writes: apiVersion, kind, name, labels, annotations, spec — then replaced with If-Match, so an
 * edit never overwrites a change made meanwhile. Saved unchanged, nothing is sent. Refused (a bad
 * field, a stale version), the edited text is kept in a file and its path printed, so no work is lost.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Command } from "commander";
import { parse, stringify } from "yaml";
import { ApiError } from "../client";
import { UsageError } from "../config";
import { type Item, kindOf } from "../kinds";
import { clientFor, streamsOf } from "../runtime";

export async function edit(kindName: string, name: string, _o: unknown, command: Command): Promise<number> {
  const kind = kindOf(kindName);
  if (kind === undefined || !kind.user) throw new UsageError(`edit takes virtualmeshes (vm), trafficpolicies (tp) or accesspolicies (ap), not "${kindName}"`);
  const client = clientFor(command);
  const path = `${kind.path}/${encodeURIComponent(name)}`;
  const { body } = await client.request<Item & { apiVersion: string; kind: string; spec: unknown }>("GET", path);
  const version = String(body.metadata?.resourceVersion ?? "");
  const editable = {
    apiVersion: body.apiVersion,
    kind: body.kind,
    metadata: {
      name: body.metadata?.name,
      ...(body.metadata?.labels ? { labels: body.metadata.labels } : {}),
      ...(body.metadata?.annotations ? { annotations: body.metadata.annotations } : {}),
    },
    spec: body.spec,
  };
  const header = `# Edit ${kind.kind} ${name} (resourceVersion ${version}). Save and quit to apply; save it unchanged to cancel.\n# If someone changes it before you save, nothing is applied and your text is kept.\n`;
  const original = header + stringify(editable, { lineWidth: 0 });
  const file = join(mkdtempSync(join(tmpdir(), "meshplane-edit-")), `${kind.plural}-${name}.yaml`);
  writeFileSync(file, original, { mode: 0o600 });
  const editor = process.env.VISUAL || process.env.EDITOR || "vi";
  // Through the shell, as git and kubectl do, so EDITOR may carry arguments ("code --wait").
  const ran = spawnSync("sh", ["-c", `${editor} "$1"`, "meshplane-edit", file], { stdio: "inherit" });
  if (ran.status !== 0) throw new UsageError(`the editor (${editor}) exited with ${ran.status ?? ran.signal}; nothing was applied (your text: ${file})`);
  const edited = readFileSync(file, "utf8");
  const streams = streamsOf();
  if (edited === original) {
    streams.err.write("edit cancelled: no changes made\n");
    return 0;
  }
  let doc: unknown;
  try {
    doc = parse(edited);
  } catch (error) {
    throw new UsageError(`the edited text is not YAML (${(error as Error).message.split("\n")[0]}); nothing was applied (your text: ${file})`);
  }
  try {
    await client.request("PUT", path, { body: doc, headers: { "if-match": `"${version}"` } });
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const why = error.status === 412 ? `${kind.kind} ${name} changed since you opened it; run edit again to start from the new version` : error.message;
    throw new ApiError(error.status, `${why}; nothing was applied (your text: ${file})`, error.errors, error);
  }
  streams.out.write(`${kind.plural}/${name} edited\n`);
  return 0;
}
