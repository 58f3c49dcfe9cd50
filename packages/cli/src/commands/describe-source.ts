/**
 * `describe`'s Source block for a resource authored in a cluster (docs/gitops.md#names-and-sources):
 * the custom resource it came from — cluster, namespace/name, uid, its generation beside the stored
 * one — and why it is read-only here.
 */
import { type ResourceSource, resourceSource, sourceFacts, sourceNote } from "@meshplane/core";
import type { printer } from "./describe-parts";

/** The source a resource's metadata carries, or undefined for one created through the API. */
export function sourceOf(metadata: Record<string, unknown> | undefined): ResourceSource | undefined {
  const parsed = resourceSource.safeParse(metadata?.source);
  return parsed.success ? parsed.data : undefined;
}

/** The block's title line, its facts in order and its note: what the console's Source block says too (core's views). */
export function sourceBlock(kind: string, source: ResourceSource, storedGeneration: unknown): { title: string; fields: [string, string][]; note: string } {
  return {
    title: `authored in cluster ${source.cluster}`,
    fields: sourceFacts(source, typeof storedGeneration === "number" ? storedGeneration : undefined),
    note: `${sourceNote(kind, source)} A tenant admin may delete it (for a cluster gone for good); its agent submits it again while the custom resource exists.`,
  };
}

/** Prints the Source block when `metadata` has a source; nothing otherwise. */
export function printSource(p: ReturnType<typeof printer>, kind: string, metadata: Record<string, unknown> | undefined): void {
  const source = sourceOf(metadata);
  if (source === undefined) return;
  const block = sourceBlock(kind, source, metadata?.generation);
  p.field("Source", block.title);
  for (const [k, v] of block.fields) p.line(`${`${k}:`.padEnd(14)}${v}`);
  p.line(p.c.yellow(block.note));
}
