import { CreateTableCommand, DescribeTableCommand, type DynamoDBClient, ResourceNotFoundException, UpdateTimeToLiveCommand } from "@aws-sdk/client-dynamodb";

/** The attribute DynamoDB's TTL sweeps on (epoch seconds); the CDK table declares the same. */
export const TTL_ATTRIBUTE = "ttl";

/**
 * Creates the single table when it does not exist (local runs and tests; in AWS the stack owns it).
 * Safe to call on every start.
 */
export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<void> {
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
    return;
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
  }
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: "PAY_PER_REQUEST",
      AttributeDefinitions: [
        { AttributeName: "PK", AttributeType: "S" },
        { AttributeName: "SK", AttributeType: "S" },
      ],
      KeySchema: [
        { AttributeName: "PK", KeyType: "HASH" },
        { AttributeName: "SK", KeyType: "RANGE" },
      ],
    }),
  );
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
    }),
  );
}
