import { SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { type CustomResourceEvent, type RotationEvent, createOperatorBootstrap } from "../ops/bootstrap-operator";
import { createDocumentClient } from "../store/client";
import { createStore } from "../store/index";

// The operator credential's function on AWS (docs/aws.md, "The operator credential"): it reads its
// three variables itself, as the stack gives them to no other function.
let deployed: ReturnType<typeof createOperatorBootstrap> | undefined;

/** Lambda entry: the custom resource's events and the secret's rotation steps. */
export const handler = async (event: CustomResourceEvent | RotationEvent) => {
  if (deployed === undefined) {
    const region = process.env.AWS_REGION ?? "us-east-1";
    deployed = createOperatorBootstrap({
      secrets: new SecretsManagerClient({ region }),
      store: createStore({ doc: createDocumentClient({ region }), table: process.env.MESHPLANE_TABLE as string, bootstrapTtlMs: 0 }),
      secretArn: process.env.MESHPLANE_OPERATOR_SECRET_ARN as string,
      now: () => new Date(),
    });
  }
  return deployed(event);
};
