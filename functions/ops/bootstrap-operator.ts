import { GetSecretValueCommand, SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { createDocumentClient } from "../store/client";
import { createStore } from "../store/index";

/**
 * CloudFormation custom resource: makes the operator credential kept in Secrets Manager usable, by
 * storing its SHA-256 in the table (the API never reads the secret itself). Runs on stack create and
 * on every update, so a rotated secret takes effect with the next deployment.
 */
export const handler = async (event: { RequestType: "Create" | "Update" | "Delete"; PhysicalResourceId?: string }) => {
  if (event.RequestType === "Delete") return { PhysicalResourceId: event.PhysicalResourceId ?? "operator-credential" };
  const secretArn = process.env.MESHPLANE_OPERATOR_SECRET_ARN as string;
  const region = process.env.AWS_REGION ?? "us-east-1";
  const secret = await new SecretsManagerClient({ region }).send(new GetSecretValueCommand({ SecretId: secretArn }));
  if (!secret.SecretString) throw new Error("the operator secret has no value");
  const store = createStore({ doc: createDocumentClient({ region }), table: process.env.MESHPLANE_TABLE as string, bootstrapTtlMs: 0 });
  await store.tokens.putOperatorSecret(secret.SecretString, new Date().toISOString());
  return { PhysicalResourceId: "operator-credential" };
};
