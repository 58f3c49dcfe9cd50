import { Effect, PolicyStatement } from "aws-cdk-lib/aws-iam";

/** DynamoDB `actions` on the table, only on items whose partition key matches `leadingKeys` (docs/aws.md, "Least privilege"). */
export function tableAccess(tableArn: string, actions: string[], leadingKeys: string[]): PolicyStatement {
  return new PolicyStatement({
    effect: Effect.ALLOW,
    actions: actions.map((a) => `dynamodb:${a}`),
    resources: [tableArn],
    conditions: { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": leadingKeys } },
  });
}
