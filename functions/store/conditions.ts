/**
 * How DynamoDB says a write's condition did not hold. A single-item write fails with
 * ConditionalCheckFailedException; a transaction fails with TransactionCanceledException, whose
 * CancellationReasons hold one reason per item of TransactItems, in order ("ConditionalCheckFailed"
 * for an item whose condition failed, "None" for one that did not cause the cancellation, or another
 * code such as "TransactionConflict"). Errors are told apart by name, as the SDK names them.
 */

const nameOf = (error: unknown): unknown => (typeof error === "object" && error !== null ? (error as { name?: unknown }).name : undefined);

/** True when `error` is a single-item write's refusal: its ConditionExpression did not hold. */
export function conditionFailed(error: unknown): boolean {
  return nameOf(error) === "ConditionalCheckFailedException";
}

/** True when `error` is a cancelled transaction, for whatever reason (a failed condition, a conflict with another write, ...). */
export function transactionCancelled(error: unknown): boolean {
  return nameOf(error) === "TransactionCanceledException";
}

/**
 * The indexes (into TransactItems, ascending) of the items of a cancelled transaction whose
 * condition failed; empty when `error` is no cancelled transaction or DynamoDB named no such item.
 */
export function failedConditions(error: unknown): number[] {
  if (!transactionCancelled(error)) return [];
  const reasons = (error as { CancellationReasons?: readonly { Code?: string }[] }).CancellationReasons ?? [];
  return reasons.flatMap((reason, index) => (reason.Code === "ConditionalCheckFailed" ? [index] : []));
}

/**
 * Waits for a single-item conditional write: true when it was written, false when its condition did
 * not hold (nothing was written). Any other error is thrown. Awaiting it without looking at the
 * answer makes the write "only if its condition holds".
 */
export async function conditionHeld(write: Promise<unknown>): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (error) {
    if (conditionFailed(error)) return false;
    throw error;
  }
}
