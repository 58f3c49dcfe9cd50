import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";

export interface DynamoConfig {
  region: string;
  /** Set for DynamoDB Local; undefined means the AWS endpoint of the region. */
  endpoint?: string;
}

/**
 * One document client per runtime; `undefined` attributes are dropped rather than rejected. A map a
 * client chose the keys of (labels) is stored whatever its keys: the SDK takes an object whose
 * `constructor` is not Object's — a label named `constructor`, a prototype-less map — for a class
 * instance and refuses it unless told to store its own enumerable properties.
 */
export function createDocumentClient(config: DynamoConfig): DynamoDBDocumentClient {
  const client = new DynamoDBClient({
    region: config.region,
    ...(config.endpoint ? { endpoint: config.endpoint, credentials: { accessKeyId: "local", secretAccessKey: "local" } } : {}),
  });
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: true } });
}
