import { TransactionCanceledException } from "@aws-sdk/client-dynamodb";
import { type DynamoDBDocumentClient, GetCommand, TransactWriteCommand } from "@aws-sdk/lib-dynamodb";
import { ConflictError, NotFoundError } from "../shared/errors";
import { keys } from "./keys";

type TransactItem = NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]["TransactItems"]>[number];

export interface RevisionWrite {
  /** Items to write with the bump; built for the revision they will carry. */
  items: TransactItem[];
  /** Maps a failed condition on items[index] to the error to raise; undefined means "retry". */
  onConditionFailed: (index: number) => Error | undefined;
}

const MAX_ATTEMPTS = 8;

/**
 * Writes `build(revision)` and bumps the tenant's input revision in ONE transaction, so a stored
 * change and the revision the translate job carries can never disagree. The tenant's revision is read
 * first and the bump is conditioned on it, which serialises writers of one tenant; a lost race is
 * retried with a fresh revision. Throws NotFoundError when the tenant does not exist or is being
 * deleted; other failed conditions go through `onConditionFailed`. Returns the new revision.
 */
export async function writeWithRevision(
  doc: DynamoDBDocumentClient,
  table: string,
  tenantId: string,
  build: (revision: number) => RevisionWrite | Promise<RevisionWrite>,
): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    const tenant = await doc.send(new GetCommand({ TableName: table, Key: keys.tenant(tenantId), ConsistentRead: true }));
    if (!tenant.Item || tenant.Item.state !== "active") throw new NotFoundError(`tenant ${tenantId} not found`);
    const current = tenant.Item.revision as number;
    const next = current + 1;
    const write = await build(next);
    try {
      await doc.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: table,
                Key: keys.tenant(tenantId),
                UpdateExpression: "SET revision = :next",
                ConditionExpression: "revision = :current AND #state = :active",
                ExpressionAttributeNames: { "#state": "state" },
                ExpressionAttributeValues: { ":next": next, ":current": current, ":active": "active" },
              },
            },
            ...write.items,
          ],
        }),
      );
      return next;
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const reasons = error.CancellationReasons ?? [];
      const failed = reasons.findIndex((r, i) => i > 0 && r.Code === "ConditionalCheckFailed");
      if (failed > 0) {
        const mapped = write.onConditionFailed(failed - 1);
        if (mapped) throw mapped;
      }
      if (attempt >= MAX_ATTEMPTS) throw new ConflictError("too many concurrent writes to this tenant; try again", { cause: error });
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
    }
  }
}
