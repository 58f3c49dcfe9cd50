import type { DynamoDBDocumentClient, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { prefixCondition, queryItems, queryKeys } from "./batch";

/** A client that answers Queries from `pages` in turn and keeps what it was asked. */
function recording(pages: { Items: Record<string, unknown>[]; LastEvaluatedKey?: Record<string, unknown> }[]) {
  const asked: QueryCommand["input"][] = [];
  const doc = {
    send: async (command: QueryCommand) => {
      asked.push(command.input);
      return pages[asked.length - 1];
    },
  } as unknown as DynamoDBDocumentClient;
  return { doc, asked };
}

// What DynamoDB makes of these queries is tested against DynamoDB Local (test/integration); here, what is asked.
describe("queryItems", () => {
  it("follows pagination, strongly read and whole by default", async () => {
    const { doc, asked } = recording([{ Items: [{ SK: "a" }], LastEvaluatedKey: { PK: "p", SK: "a" } }, { Items: [{ SK: "b" }] }]);
    expect(await queryItems(doc, "t", "p", "R#")).toEqual([{ SK: "a" }, { SK: "b" }]);
    expect(asked).toEqual([
      {
        TableName: "t",
        KeyConditionExpression: "PK = :pk AND begins_with(SK, :prefix)",
        ExpressionAttributeValues: { ":pk": "p", ":prefix": "R#" },
        ExclusiveStartKey: undefined,
        ConsistentRead: true,
      },
      {
        TableName: "t",
        KeyConditionExpression: "PK = :pk AND begins_with(SK, :prefix)",
        ExpressionAttributeValues: { ":pk": "p", ":prefix": "R#" },
        ExclusiveStartKey: { PK: "p", SK: "a" },
        ConsistentRead: true,
      },
    ]);
  });

  it("reads the whole partition for the prefix '', eventually consistent and projected when asked", async () => {
    const { doc, asked } = recording([{ Items: [] }]);
    await queryItems(doc, "t", "p", "", { consistentRead: false, projection: "a, b" });
    expect(asked).toEqual([
      {
        TableName: "t",
        KeyConditionExpression: "PK = :pk",
        ExpressionAttributeValues: { ":pk": "p" },
        ProjectionExpression: "a, b",
        ExclusiveStartKey: undefined,
        ConsistentRead: false,
      },
    ]);
  });
});

describe("queryKeys", () => {
  it("projects the keys, of the whole partition without a prefix", async () => {
    const { doc, asked } = recording([{ Items: [{ PK: "p", SK: "x" }] }]);
    expect(await queryKeys(doc, "t", "p")).toEqual([{ PK: "p", SK: "x" }]);
    expect(asked[0]).toMatchObject({ KeyConditionExpression: "PK = :pk", ProjectionExpression: "PK, SK", ConsistentRead: true });
  });
});

describe("prefixCondition", () => {
  it("never puts an empty string in a key condition (DynamoDB refuses it)", () => {
    expect(prefixCondition("p", "")).toEqual({ expression: "PK = :pk", values: { ":pk": "p" } });
    expect(prefixCondition("p", "C#")).toEqual({ expression: "PK = :pk AND begins_with(SK, :prefix)", values: { ":pk": "p", ":prefix": "C#" } });
  });
});
