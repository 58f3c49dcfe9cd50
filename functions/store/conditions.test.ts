import { ConditionalCheckFailedException, ResourceNotFoundException, TransactionCanceledException } from "@aws-sdk/client-dynamodb";
import { describe, expect, it } from "vitest";
import { conditionFailed, conditionHeld, failedConditions, transactionCancelled } from "./conditions";

// The SDK's own exceptions, as the client throws them; DynamoDB Local's answers are tested through
// the stores (test/integration).
const $metadata = {};
const conditional = () => new ConditionalCheckFailedException({ message: "The conditional request failed", $metadata });
const cancelled = (...codes: string[]) =>
  new TransactionCanceledException({ message: "Transaction cancelled", $metadata, CancellationReasons: codes.map((Code) => ({ Code })) });
const other = () => new ResourceNotFoundException({ message: "no table", $metadata });

describe("conditionFailed", () => {
  it("is true for a single-item write's failed condition only", () => {
    expect(conditionFailed(conditional())).toBe(true);
    expect(conditionFailed(cancelled("ConditionalCheckFailed"))).toBe(false);
    expect(conditionFailed(other())).toBe(false);
    expect(conditionFailed(new Error("ConditionalCheckFailedException"))).toBe(false);
    expect(conditionFailed(undefined)).toBe(false);
    expect(conditionFailed("ConditionalCheckFailedException")).toBe(false);
  });

  it("goes by the name, as an error of another copy of the SDK carries it", () => {
    expect(conditionFailed(Object.assign(new Error("x"), { name: "ConditionalCheckFailedException" }))).toBe(true);
  });
});

describe("transactionCancelled", () => {
  it("is true for a cancelled transaction, whatever cancelled it", () => {
    expect(transactionCancelled(cancelled("None", "ConditionalCheckFailed"))).toBe(true);
    expect(transactionCancelled(cancelled("TransactionConflict"))).toBe(true);
    expect(transactionCancelled(cancelled())).toBe(true);
    expect(transactionCancelled(conditional())).toBe(false);
    expect(transactionCancelled(other())).toBe(false);
    expect(transactionCancelled(null)).toBe(false);
  });
});

describe("failedConditions", () => {
  it("names the items whose condition failed, in TransactItems order", () => {
    expect(failedConditions(cancelled("None", "ConditionalCheckFailed", "None", "ConditionalCheckFailed"))).toEqual([1, 3]);
    expect(failedConditions(cancelled("ConditionalCheckFailed"))).toEqual([0]);
  });

  it("is empty when no condition failed or the error is no cancelled transaction", () => {
    expect(failedConditions(cancelled("None", "TransactionConflict"))).toEqual([]);
    expect(failedConditions(new TransactionCanceledException({ message: "no reasons", $metadata }))).toEqual([]);
    expect(failedConditions(conditional())).toEqual([]);
    expect(failedConditions(other())).toEqual([]);
  });
});

describe("conditionHeld", () => {
  it("is true when the write landed and false when its condition failed", async () => {
    await expect(conditionHeld(Promise.resolve({}))).resolves.toBe(true);
    await expect(conditionHeld(Promise.reject(conditional()))).resolves.toBe(false);
  });

  it("throws every other error, a cancelled transaction included", async () => {
    const error = other();
    await expect(conditionHeld(Promise.reject(error))).rejects.toBe(error);
    const transaction = cancelled("ConditionalCheckFailed");
    await expect(conditionHeld(Promise.reject(transaction))).rejects.toBe(transaction);
  });
});
