import { Effect, PolicyStatement } from "aws-cdk-lib/aws-iam";

/** Item keys each function may touch (dynamodb:LeadingKeys); see docs/aws.md for why the API's set is wide. */
export const LEADING_KEYS = {
  api: ["T#*", "TOKEN#*", "BOOT#*", "TENANTS", "OPERATOR"],
  worker: ["T#*"],
  maintenance: ["T#*", "TENANTS"],
  bootstrap: ["TOKEN#*", "OPERATOR"],
  // Push connections: per cluster under the tenant, and a lookup by connection id (a disconnect names only that).
  push: ["T#*", "PUSH#*"],
  caSigner: ["T#*"],
};

/** DynamoDB `actions` on the table, only on items whose partition key matches `leadingKeys` (docs/aws.md, "Least privilege"). */
export function tableAccess(tableArn: string, actions: string[], leadingKeys: string[]): PolicyStatement {
  return new PolicyStatement({
    effect: Effect.ALLOW,
    actions: actions.map((a) => `dynamodb:${a}`),
    resources: [tableArn],
    conditions: { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": leadingKeys } },
  });
}
