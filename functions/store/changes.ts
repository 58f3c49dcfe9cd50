/**
 * The change log: what each revision bump of a tenant touched, written in the same transaction as
 * the bump, so a translate worker that holds the tenant's input as of revision H can read only what
 * changed since instead of the whole tenant.
 *
 * An entry is keyed by the revision its writer built it for (the revision read just before, plus
 * one). The bump is an atomic increment, so the revision a change finally carries can be higher;
 * writeWithRevision bounds by how much (CHANGE_LOG_SLACK), and a reader holding H reads every entry
 * built for H - CHANGE_LOG_SLACK + 1 or later. Re-reading an entry already reflected is harmless: an
 * entry names what to read again, never a delta. A bump with no room for an entry (a full
 * transaction) or no description counts on the tenant item instead (`unloggedChanges`), and a
 * reader that sees the count move since it loaded reloads the whole tenant.
 */
import { randomUUID } from "node:crypto";
import type { UserKind } from "@meshplane/core/base";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { queryItemsBetween } from "./batch";
import { tenantPk } from "./keys";
import { TTL_ATTRIBUTE } from "./table";

/** What one revision bump touched, as far as translation input goes. */
export type Change =
  /** A VirtualMesh, TrafficPolicy or AccessPolicy created, replaced or deleted. */
  | { type: "resource"; kind: UserKind; name: string }
  /** A cluster's discovered meshes, workloads and destinations replaced. */
  | { type: "discovery"; cluster: string }
  /** A cluster registered or deregistered. */
  | { type: "cluster"; name: string }
  /** Something every translate job reads afresh anyway (agent reports, certificate authorities). */
  | { type: "none" };

/**
 * How many revisions a bump may land above the one it was built for; more concurrent writers than
 * this between one writer's read and its commit make it retry. Also how far back a reader looks.
 */
export const CHANGE_LOG_SLACK = 16;

/** Entries outlive any warm worker state by far; an older holder reloads in full. */
export const CHANGE_LOG_TTL_S = 7 * 24 * 3600;

const SK_PREFIX = "X#";
const revisionPart = (revision: number) => String(Math.max(0, revision)).padStart(12, "0");

/** The transaction item that records `changes` for a bump built for `revision`. */
export function changeLogPut(table: string, tenantId: string, revision: number, changes: readonly Change[], now: Date) {
  return {
    Put: {
      TableName: table,
      Item: {
        PK: tenantPk(tenantId),
        SK: `${SK_PREFIX}${revisionPart(revision)}#${randomUUID()}`,
        revision,
        changes,
        [TTL_ATTRIBUTE]: Math.floor(now.getTime() / 1000) + CHANGE_LOG_TTL_S,
      },
    },
  };
}

/** One entry of the log: its sort key (unique) and what it names. */
export interface ChangeEntry {
  id: string;
  /** The revision its writer built it for. */
  revision: number;
  changes: Change[];
}

/** Reads the change log. */
export class ChangeLog {
  constructor(private readonly deps: { doc: DynamoDBDocumentClient; table: string }) {}

  /**
   * Every change recorded for bumps built for `from` or later, strongly read: after a strong read of
   * the tenant's revision R, this includes every change that R counts.
   */
  since(tenantId: string, from: number): Promise<ChangeEntry[]> {
    return changesSince(this.deps.doc, this.deps.table, tenantId, from);
  }
}

async function changesSince(doc: DynamoDBDocumentClient, table: string, tenantId: string, from: number): Promise<ChangeEntry[]> {
  const items = await queryItemsBetween(doc, table, tenantPk(tenantId), `${SK_PREFIX}${revisionPart(from)}`, `${SK_PREFIX}~`);
  return items.map((item) => ({ id: item.SK as string, revision: item.revision as number, changes: (item.changes as Change[] | undefined) ?? [] }));
}
