import type { TestProject } from "vitest/node";
import { startDynamoLocal } from "../../functions/local/dynamo-local";
import { startSqsLocal } from "../../functions/local/sqs-local";

declare module "vitest" {
  export interface ProvidedContext {
    dynamoEndpoint: string;
    sqsEndpoint: string;
  }
}

/**
 * One DynamoDB Local (in memory) and one SQS emulator for the whole integration tier; every test
 * file makes its own table and queues on them, so files never see each other's data.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dynamo = await startDynamoLocal();
  const sqs = await startSqsLocal();
  project.provide("dynamoEndpoint", dynamo.endpoint);
  project.provide("sqsEndpoint", sqs.endpoint);
  return async () => {
    await sqs.stop();
    await dynamo.stop();
  };
}
