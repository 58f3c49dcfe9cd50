import { type DynamoDBDocumentClient, GetCommand, TransactWriteCommand } from "@aws-sdk/lib-dynamodb";
import { ConflictError, NotFoundError } from "../shared/errors";
import { CHANGE_LOG_SLACK, type Change, changeLogPut } from "./changes";
import { failedConditions, transactionCancelled } from "./conditions";
import { keys } from "./keys";

type TransactItem = NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]["TransactItems"]>[number];

export interface RevisionWrite {
  /** Items to write with the bump; built for the revision they will carry. */
  items: TransactItem[];
  /** Maps a failed condition on items[index] to the error to raise; undefined means "retry". */
  onConditionFailed: (index: number) => Error | undefined;
  /**
   * What the write touches, for the change log (changes.ts). Absent: unknown, and a worker holding the
   * tenant's input reloads it whole.
   */
  changes?: readonly Change[];
}

/** DynamoDB's limit on the items of one transaction. */
const MAX_TRANSACTION_ITEMS = 100;

/**
 * How long a writer keeps retrying a lost race for the tenant's revision before answering 409: long
 * enough that 50 concurrent writes to one tenant all land, well inside API Gateway's 30 s.
 */
export const REVISION_RETRY_BUDGET_MS = 10_000;
const BACKOFF_BASE_MS = 5;
const BACKOFF_CAP_MS = 250;

/**
 * Writes `build(revision)` and bumps the tenant's input revision in ONE transaction, so a stored
 * change and the revision that counts it can never disagree: a worker that reads revision R (strongly)
 * and then the store sees every change R counts. The bump is an atomic increment, not a
 * compare-and-set on the value read before: concurrent writers of one tenant do not invalidate each
 * other, and only transactions that overlap in DynamoDB itself are retried (exponential backoff with
 * full jitter, for up to REVISION_RETRY_BUDGET_MS). `build` receives the revision read just before
 * plus one — the earliest the change can carry, used as the written resources' `resourceVersion`
 * (monotonic per resource; two resources changed at once may share one). Throws NotFoundError when
 * the tenant does not exist or is being deleted; other failed conditions go through
 * `onConditionFailed`. Returns the tenant's revision after the commit, which counts this change.
 */
export async function writeWithRevision(
  doc: DynamoDBDocumentClient,
  table: string,
  tenantId: string,
  build: (revision: number) => RevisionWrite | Promise<RevisionWrite>,
): Promise<number> {
  const deadline = Date.now() + REVISION_RETRY_BUDGET_MS;
  for (let attempt = 1; ; attempt++) {
    const current = await revisionOf(doc, table, tenantId);
    const built = current + 1;
    const write = await build(built);
    // The change log entry rides in the same transaction; with no room or no description, the
    // tenant item counts one more unlogged change.
    const logged = write.changes !== undefined && write.items.length + 2 <= MAX_TRANSACTION_ITEMS;
    try {
      await doc.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: table,
                Key: keys.tenant(tenantId),
                UpdateExpression: logged ? "SET revision = revision + :one" : "SET revision = revision + :one ADD unloggedChanges :one",
                // The commit may land at most CHANGE_LOG_SLACK revisions above `built`: what lets a
                // change-log reader know how far back to look.
                ConditionExpression: "#state = :active AND revision < :limit",
                ExpressionAttributeNames: { "#state": "state" },
                ExpressionAttributeValues: { ":one": 1, ":active": "active", ":limit": current + CHANGE_LOG_SLACK },
              },
            },
            ...write.items,
            ...(logged ? [changeLogPut(table, tenantId, built, write.changes ?? [], new Date())] : []),
          ],
        }),
      );
      return await revisionOf(doc, table, tenantId);
    } catch (error) {
      if (!transactionCancelled(error)) throw error;
      const failed = failedConditions(error);
      // Gone (revisionOf throws NotFoundError), or too many writers landed meanwhile: retry.
      if (failed.includes(0)) await revisionOf(doc, table, tenantId);
      const item = failed.find((index) => index > 0 && index <= write.items.length);
      if (item !== undefined) {
        const mapped = write.onConditionFailed(item - 1);
        if (mapped) throw mapped;
      }
      const pause = Math.random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** attempt);
      if (Date.now() + pause > deadline) throw new ConflictError("too many concurrent writes to this tenant; try again", { cause: error });
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}

/** The tenant's revision, strongly read; NotFoundError when the tenant does not exist or is being deleted. */
async function revisionOf(doc: DynamoDBDocumentClient, table: string, tenantId: string): Promise<number> {
  const tenant = await doc.send(new GetCommand({ TableName: table, Key: keys.tenant(tenantId), ConsistentRead: true }));
  if (!tenant.Item || tenant.Item.state !== "active") throw new NotFoundError(`tenant ${tenantId} not found`);
  return tenant.Item.revision as number;
}
