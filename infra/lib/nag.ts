import type { Stack } from "aws-cdk-lib";
import { NagSuppressions } from "cdk-nag";

/**
 * Every cdk-nag AwsSolutions finding this stack acknowledges, each with the reason a security
 * reviewer would want to read. Anything not listed here fails the infra tests.
 */
export function acknowledgeFindings(stack: Stack): void {
  NagSuppressions.addStackSuppressions(stack, [
    {
      id: "AwsSolutions-APIG4",
      reason:
        "Every route is authenticated inside the API (tenant bearer tokens, operator credential, or ES256-signed agent JWTs with replay protection); an API Gateway authorizer would split that logic and could not verify agent JWTs against per-cluster keys in the table.",
    },
    {
      id: "AwsSolutions-IAM4",
      reason:
        "AWSLambdaBasicExecutionRole only allows writing the function's own CloudWatch Logs; it is the AWS-maintained minimum for Lambda logging (appliesTo: service-role/AWSLambdaBasicExecutionRole).",
      appliesTo: ["Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole"],
    },
    {
      id: "AwsSolutions-IAM4",
      reason:
        "AmazonAPIGatewayPushToCloudWatchLogs is the AWS-maintained policy API Gateway's account role needs to write WebSocket stage logs; the role can only be assumed by API Gateway.",
      appliesTo: ["Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs"],
    },
    {
      id: "AwsSolutions-IAM5",
      reason:
        "X-Ray trace segment APIs (xray:PutTraceSegments, xray:PutTelemetryRecords) do not support resource-level permissions, and the custom-resource provider framework must be allowed to invoke the versions of its own onEvent function.",
      appliesTo: ["Resource::*", { regex: "/^Resource::<OperatorBootstrapFunction[A-Za-z0-9]+\\.Arn>:\\*$/g" }],
    },
    {
      id: "AwsSolutions-IAM5",
      reason:
        "The push channel's connection ids are made by API Gateway as agents connect, so posting to and closing them is granted on this WebSocket API's own stage's @connections path, for any connection id — and only to the worker and the push function.",
      appliesTo: [
        { regex: "/^Resource::arn:<AWS::Partition>:execute-api:<AWS::Region>:<AWS::AccountId>:<PushApi[A-Za-z0-9]+>\\/live\\/\\*\\/@connections\\/\\*$/g" },
      ],
    },
    {
      id: "AwsSolutions-IAM5",
      reason:
        "CDK's BucketDeployment handler uploads the console: it reads the deploy-time asset from the CDK assets bucket and writes and replaces objects in the console's site bucket, through CDK's grantRead/grantReadWrite (s3:GetObject*, s3:GetBucket*, s3:List*, s3:DeleteObject*, s3:Abort*) scoped to exactly those two buckets.",
      appliesTo: [
        "Action::s3:GetObject*",
        "Action::s3:GetBucket*",
        "Action::s3:List*",
        "Action::s3:DeleteObject*",
        "Action::s3:Abort*",
        "Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*",
        { regex: "/^Resource::<ConsoleSite[A-Za-z0-9]+\\.Arn>\\/\\*$/g" },
      ],
    },
    {
      id: "AwsSolutions-IAM5",
      reason:
        "The metrics bucket's objects are named by tenant, shard and hour as they are written (docs/aws.md#metrics), so each function is granted its prefixes: the ingest function puts segments (seg/*), the maintenance function reads segments and hour objects and puts hour and day objects (seg/*, h/*, d/*), the API reads all three for the read routes.",
      appliesTo: [{ regex: "/^Resource::<MetricsBucket[A-Za-z0-9]+\\.Arn>\\/(seg|h|d)\\/\\*$/g" }],
    },
    {
      id: "AwsSolutions-S1",
      reason:
        "The metrics bucket is written and read only by the stack's own functions, through IAM grants on its prefixes; its objects are roll-ups that expire within 32 days. Per-request access logs would cost more than the data (a PUT per segment, a GET per read); CloudTrail data events can be turned on by an operator who wants them.",
    },
    {
      id: "AwsSolutions-CFR1",
      reason: "The console and API serve tenants wherever their platform teams work; access is by tenant token, not by country.",
    },
    {
      id: "AwsSolutions-CFR2",
      reason:
        "Every API route authenticates and is rate-limited per tenant, credential and agent in the API itself (docs/api.md), and the API stage is throttled; the console's own files are static. A WAF web ACL for CloudFront must live in us-east-1 and is left to operators who want one.",
    },
    {
      id: "AwsSolutions-CFR4",
      reason:
        "Without a custom domain the distribution uses CloudFront's default certificate, whose security policy CloudFront fixes at TLSv1; a deployment with its own domain and ACM certificate sets TLSv1.2_2021 (docs/console.md).",
    },
    {
      id: "AwsSolutions-L1",
      reason: "The functions are pinned to nodejs22.x on purpose (tested runtime); the custom-resource provider framework's runtime is managed by aws-cdk-lib.",
    },
    {
      id: "AwsSolutions-SMG4",
      reason:
        "The operator credential has a rotation function (the bootstrap function, which revokes the old credential as it installs the new one) but no schedule: it is rotated on demand with `aws secretsmanager rotate-secret`, since a scheduled rotation would leave operators holding a credential that silently stopped working.",
    },
    {
      id: "AwsSolutions-SQS3",
      reason: "These queues are the dead-letter queues of the translate queue and of the metrics queue; they have no dead-letter queue of their own by design.",
    },
  ]);
}
