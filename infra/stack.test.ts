import { App, Aspects } from "aws-cdk-lib";
import { Annotations, Match, Template } from "aws-cdk-lib/assertions";
import { RetentionDays } from "aws-cdk-lib/aws-logs";
import { AwsSolutionsChecks } from "cdk-nag";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { CONSOLE_CSP } from "../packages/console/headers";
import { API_PATHS } from "./lib/console";
import { MeshplaneStack } from "./lib/stack";

/**
 * In-process synthesis (no AWS credentials, no network): esbuild bundles every function locally. The
 * template and the cdk-nag annotations are read once here, in beforeAll, so no single test pays for a
 * synthesis under its own timeout.
 */
function synth(stage: string) {
  const app = new App();
  const stack = new MeshplaneStack(app, `meshplane-${stage}`, { stage, logRetention: RetentionDays.ONE_MONTH, alarmEmail: "ops@example.com" });
  Aspects.of(app).add(new AwsSolutionsChecks({ verbose: true }));
  const template = Template.fromStack(stack);
  const annotations = Annotations.fromStack(stack);
  const nag = Match.stringLikeRegexp("AwsSolutions-.*");
  return { app, stack, template, nagFindings: [...annotations.findError("*", nag), ...annotations.findWarning("*", nag)] };
}

let dev: ReturnType<typeof synth>;
let prod: ReturnType<typeof synth>;
beforeAll(() => {
  dev = synth("dev");
  prod = synth("prod");
}, 300_000);

type Statement = { Action: string | string[]; Resource: unknown; Condition?: unknown };
const statementsOf = (template: Template, role: RegExp): Statement[] =>
  Object.entries(template.findResources("AWS::IAM::Policy"))
    .filter(([, p]) => (p as { Properties: { Roles: { Ref: string }[] } }).Properties.Roles.some((r) => role.test(r.Ref)))
    .flatMap(([, p]) => (p as { Properties: { PolicyDocument: { Statement: Statement[] } } }).Properties.PolicyDocument.Statement);
const roleOf = (ref: string) => ref.replace(/ServiceRole.*$/, "");
const actionsOf = (template: Template, role: RegExp) =>
  statementsOf(template, role)
    .flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]))
    .sort();

describe("the AWS stack", () => {
  it("has one on-demand table with PK/SK, TTL, PITR and encryption; retained and protected in prod", () => {
    dev.template.resourceCountIs("AWS::DynamoDB::Table", 1);
    const props = {
      KeySchema: [
        { AttributeName: "PK", KeyType: "HASH" },
        { AttributeName: "SK", KeyType: "RANGE" },
      ],
      BillingMode: "PAY_PER_REQUEST",
      TimeToLiveSpecification: { AttributeName: "ttl", Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      SSESpecification: { SSEEnabled: true },
    };
    dev.template.hasResourceProperties("AWS::DynamoDB::Table", props);
    prod.template.hasResource("AWS::DynamoDB::Table", { DeletionPolicy: "Retain", Properties: Match.objectLike({ DeletionProtectionEnabled: true }) });
    dev.template.hasResource("AWS::DynamoDB::Table", { DeletionPolicy: "Delete" });
  });

  it("has a FIFO translate queue redriving to a FIFO DLQ, consumed with partial batch failures", () => {
    dev.template.hasResourceProperties("AWS::SQS::Queue", { FifoQueue: true, RedrivePolicy: { maxReceiveCount: 5, deadLetterTargetArn: Match.anyValue() } });
    // Every queue is FIFO but the metrics queue and its dead-letter queue (standard: reports need no order).
    const queues = Object.entries(dev.template.findResources("AWS::SQS::Queue")).filter(([id]) => !id.startsWith("Metrics"));
    expect(queues.length).toBe(2);
    expect(queues.every(([, q]) => (q as { Properties: { FifoQueue?: boolean } }).Properties.FifoQueue)).toBe(true);
    dev.template.hasResourceProperties("AWS::Lambda::EventSourceMapping", {
      BatchSize: 10,
      FunctionResponseTypes: ["ReportBatchItemFailures"],
      ScalingConfig: { MaximumConcurrency: 20 },
    });
  });

  it("keeps metrics in an encrypted private bucket whose prefixes expire, fed by a standard queue and an ingest function of small concurrency", () => {
    dev.template.hasResourceProperties("AWS::S3::Bucket", {
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: "AES256" } }] },
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
      LifecycleConfiguration: {
        Rules: Match.arrayWith([
          Match.objectLike({ Prefix: "seg/", ExpirationInDays: 1, Status: "Enabled" }),
          Match.objectLike({ Prefix: "h/", ExpirationInDays: 3, Status: "Enabled" }),
          Match.objectLike({ Prefix: "d/", ExpirationInDays: 32, Status: "Enabled" }),
        ]),
      },
    });
    const metricsQueue = Object.entries(dev.template.findResources("AWS::SQS::Queue")).find(([id]) => id.startsWith("MetricsQueue"))?.[1] as {
      Properties: { FifoQueue?: boolean; RedrivePolicy?: { maxReceiveCount: number }; VisibilityTimeout: number };
    };
    expect(metricsQueue.Properties.FifoQueue).toBeUndefined();
    expect(metricsQueue.Properties.RedrivePolicy?.maxReceiveCount).toBe(5);
    expect(metricsQueue.Properties.VisibilityTimeout).toBe(360);
    dev.template.hasResourceProperties("AWS::Lambda::EventSourceMapping", {
      BatchSize: 10_000,
      MaximumBatchingWindowInSeconds: 60,
      FunctionResponseTypes: ["ReportBatchItemFailures"],
      ScalingConfig: { MaximumConcurrency: 2 },
    });
    dev.template.hasResourceProperties("AWS::Lambda::Function", { Description: "meshplane metrics ingest", ReservedConcurrentExecutions: 2, Timeout: 60 });
    dev.template.hasResourceProperties("AWS::Events::Rule", {
      ScheduleExpression: "cron(20 * * * ? *)",
      Targets: [Match.objectLike({ Input: '{"task":"compact-metrics"}' })],
    });
    // The ingest function writes segments and nothing else; the API reads and sends; compaction writes rollups.
    const writes = (role: RegExp) =>
      statementsOf(dev.template, role)
        .filter((st) => JSON.stringify(st.Action).includes("s3:PutObject"))
        .map((st) => JSON.stringify(st.Resource));
    expect(actionsOf(dev.template, /^MetricsIngestFunction/).filter((a) => !a.startsWith("xray:") && !a.startsWith("sqs:"))).toEqual(["s3:PutObject"]);
    expect(writes(/^MetricsIngestFunction/).join()).toMatch(/\/seg\/\*/);
    expect(writes(/^MetricsIngestFunction/).join()).not.toMatch(/\/(h|d)\/\*/);
    expect(actionsOf(dev.template, /^ApiFunction/).filter((a) => a.startsWith("s3:"))).toEqual(["s3:GetObject", "s3:ListBucket"]);
    expect(writes(/^MaintenanceFunction/).join()).toMatch(/\/h\/\*.*\/d\/\*/);
    expect(writes(/^MaintenanceFunction/).join()).not.toMatch(/\/seg\/\*/);
  });

  it("signs with an ECC_NIST_P256 KMS key; only the worker may sign, the API may only read the public key", () => {
    dev.template.hasResourceProperties("AWS::KMS::Key", { KeySpec: "ECC_NIST_P256", KeyUsage: "SIGN_VERIFY" });
    expect(actionsOf(dev.template, /^WorkerFunction/).filter((a) => a.startsWith("kms:"))).toEqual(["kms:GenerateDataKey", "kms:GetPublicKey", "kms:Sign"]);
    expect(actionsOf(dev.template, /^ApiFunction/).filter((a) => a.startsWith("kms:"))).toEqual(["kms:GetPublicKey"]);
    for (const role of [/^MaintenanceFunction/, /^OperatorBootstrapFunction/])
      expect(actionsOf(dev.template, role).filter((a) => a.startsWith("kms:"))).toEqual([]);
  });

  it("seals CA keys with a rotating symmetric KMS key: the worker may only seal, the CA signer only open, both bound to the CA encryption context", () => {
    dev.template.hasResourceProperties("AWS::KMS::Key", { EnableKeyRotation: true, Description: Match.stringLikeRegexp("CA keys") });
    const caStatements = (role: RegExp) => statementsOf(dev.template, role).filter((s) => JSON.stringify(s.Action).match(/kms:(Decrypt|GenerateDataKey)/));
    for (const role of [/^WorkerFunction/, /^CaSignerFunction/]) {
      expect(caStatements(role).map((s) => s.Condition)).toEqual([{ StringEquals: { "kms:EncryptionContext:purpose": "meshplane-ca" } }]);
    }
  });

  it("lets only the CA signer decrypt, and the API only invoke it; the signer has no route", () => {
    const holders = (action: string) =>
      Object.values(dev.template.findResources("AWS::IAM::Policy"))
        .filter((p) =>
          (p as { Properties: { PolicyDocument: { Statement: Statement[] } } }).Properties.PolicyDocument.Statement.some((st) =>
            [st.Action].flat().some((a) => a === action || a === "kms:*" || a === "*"),
          ),
        )
        .flatMap((p) => (p as { Properties: { Roles: { Ref: string }[] } }).Properties.Roles.map((r) => roleOf(r.Ref)));
    expect(holders("kms:Decrypt")).toEqual([expect.stringMatching(/^CaSignerFunction/)]);
    const signerId = Object.keys(dev.template.findResources("AWS::Lambda::Function")).find((id) => id.startsWith("CaSignerFunction")) as string;
    const invokers = Object.values(dev.template.findResources("AWS::IAM::Policy"))
      .filter((p) =>
        (p as { Properties: { PolicyDocument: { Statement: Statement[] } } }).Properties.PolicyDocument.Statement.some((st) =>
          JSON.stringify(st.Resource).includes(signerId),
        ),
      )
      .flatMap((p) => (p as { Properties: { Roles: { Ref: string }[] } }).Properties.Roles.map((r) => roleOf(r.Ref)));
    expect(invokers).toEqual([expect.stringMatching(/^ApiFunction/)]);
    const invoke = statementsOf(dev.template, /^ApiFunction/).filter((st) => st.Action === "lambda:InvokeFunction");
    expect(invoke.map((st) => st.Resource)).toEqual([{ "Fn::GetAtt": [signerId, "Arn"] }]);
    expect(actionsOf(dev.template, /^CaSignerFunction/).filter((a) => !a.startsWith("xray:"))).toEqual([
      "dynamodb:DeleteItem",
      "dynamodb:GetItem",
      "dynamodb:PutItem",
      "dynamodb:Query",
      "kms:Decrypt",
      "kms:GetPublicKey",
    ]);
    expect(
      statementsOf(dev.template, /^CaSignerFunction/)
        .filter((st) => JSON.stringify(st.Action).includes("dynamodb:"))
        .map((st) => st.Condition),
    ).toEqual([{ "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["T#*"] } }]);
    // No API Gateway integration, no event source, no resource policy lets anything else invoke it.
    expect(JSON.stringify(dev.template.findResources("AWS::ApiGatewayV2::Integration"))).not.toContain(signerId);
    expect(JSON.stringify(dev.template.findResources("AWS::Lambda::Permission"))).not.toContain(signerId);
    expect(JSON.stringify(dev.template.findResources("AWS::Lambda::EventSourceMapping"))).not.toContain(signerId);
    const [, apiFn] = Object.entries(dev.template.findResources("AWS::Lambda::Function")).find(([id]) => id.startsWith("ApiFunction")) as [
      string,
      { Properties: { Environment: { Variables: Record<string, unknown> } } },
    ];
    const apiEnv = apiFn.Properties.Environment.Variables;
    expect(apiEnv.MESHPLANE_CA_SIGNER_FUNCTION).toEqual({ Ref: signerId });
  });

  it("grants each function exactly the actions it uses, with DynamoDB access conditioned on leading keys", () => {
    expect(actionsOf(dev.template, /^ApiFunction/).filter((a) => !a.startsWith("xray:"))).toEqual([
      "dynamodb:BatchGetItem",
      "dynamodb:BatchWriteItem",
      "dynamodb:ConditionCheckItem",
      "dynamodb:DeleteItem",
      "dynamodb:GetItem",
      "dynamodb:PutItem",
      "dynamodb:Query",
      "dynamodb:UpdateItem",
      "kms:GetPublicKey",
      "lambda:InvokeFunction",
      "s3:GetObject",
      "s3:ListBucket",
      "sqs:SendMessage",
      "sqs:SendMessage",
    ]);
    expect(actionsOf(dev.template, /^WorkerFunction/).filter((a) => !a.startsWith("xray:") && !a.startsWith("sqs:"))).toEqual([
      "dynamodb:BatchGetItem",
      "dynamodb:BatchWriteItem",
      "dynamodb:DeleteItem",
      "dynamodb:DeleteItem",
      "dynamodb:GetItem",
      "dynamodb:PutItem",
      "dynamodb:Query",
      "dynamodb:UpdateItem",
      "execute-api:ManageConnections",
      "kms:GenerateDataKey",
      "kms:GetPublicKey",
      "kms:Sign",
    ]);
    expect(actionsOf(dev.template, /^PushFunction/).filter((a) => !a.startsWith("xray:"))).toEqual([
      "dynamodb:DeleteItem",
      "dynamodb:GetItem",
      "dynamodb:PutItem",
      "dynamodb:Query",
      "execute-api:ManageConnections",
    ]);
    expect(actionsOf(dev.template, /^OperatorBootstrapFunction/).filter((a) => !a.startsWith("xray:"))).toEqual([
      "dynamodb:DeleteItem",
      "dynamodb:GetItem",
      "dynamodb:PutItem",
      "secretsmanager:DescribeSecret",
      "secretsmanager:GetSecretValue",
      "secretsmanager:PutSecretValue",
      "secretsmanager:UpdateSecretVersionStage",
    ]);
    const leading = (role: RegExp) =>
      statementsOf(dev.template, role)
        .filter((s) => JSON.stringify(s.Action).includes("dynamodb:"))
        .map((s) => s.Condition);
    expect(leading(/^WorkerFunction/)).toEqual([
      { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["T#*"] } },
      { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["PUSH#*"] } },
    ]);
    expect(leading(/^PushFunction/)).toEqual([{ "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["T#*", "PUSH#*"] } }]);
    expect(leading(/^OperatorBootstrapFunction/)).toEqual([{ "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["TOKEN#*", "OPERATOR"] } }]);
    expect(leading(/^MaintenanceFunction/)).toEqual([{ "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["T#*", "TENANTS"] } }]);
  });

  it("rotates the operator credential on demand through the bootstrap function, which alone may touch the secret; deploying re-runs the bootstrap", () => {
    const secret = { Ref: Match.stringLikeRegexp("^OperatorCredential") };
    const bootstrapArn = { "Fn::GetAtt": [Match.stringLikeRegexp("^OperatorBootstrapFunction"), "Arn"] };
    const rotations = Object.values(dev.template.findResources("AWS::SecretsManager::RotationSchedule")) as {
      Properties: Record<string, unknown>;
      DependsOn?: string[];
    }[];
    expect(rotations).toHaveLength(1);
    // No schedule: rotation is `aws secretsmanager rotate-secret`, never a credential silently replaced under an operator.
    dev.template.hasResourceProperties("AWS::SecretsManager::RotationSchedule", {
      SecretId: secret,
      RotationLambdaARN: bootstrapArn,
      RotateImmediatelyOnUpdate: false,
      RotationRules: Match.absent(),
    });
    expect(rotations[0]?.DependsOn?.some((d) => d.startsWith("OperatorBootstrapFunctionSecretsManagerRotates"))).toBe(true);
    dev.template.hasResourceProperties("AWS::Lambda::Permission", {
      Action: "lambda:InvokeFunction",
      FunctionName: bootstrapArn,
      Principal: "secretsmanager.amazonaws.com",
      SourceArn: secret,
      SourceAccount: { Ref: "AWS::AccountId" },
    });
    dev.template.hasResourceProperties("AWS::CloudFormation::CustomResource", { secret, credential: "mpo_" });
    const writers = statementsOf(dev.template, /.*/).filter((s) => JSON.stringify(s.Action).match(/secretsmanager:(PutSecretValue|UpdateSecretVersionStage)/));
    expect(writers).toHaveLength(1);
    expect(statementsOf(dev.template, /^OperatorBootstrapFunction/)).toContain(writers[0]);
    expect(JSON.stringify(writers[0]?.Resource)).toMatch(/^\{"Ref":"OperatorCredential[0-9A-F]+"\}$/);
  });

  it("has no wildcard action anywhere but in CDK's console upload", () => {
    // CDK's BucketDeployment handler copies the console from the CDK asset bucket into the site
    // bucket with grantRead/grantReadWrite (s3:GetObject*, s3:List*, …) on exactly those two buckets.
    const upload = /^CustomCDKBucketDeployment/;
    for (const s of statementsOf(dev.template, /.*/).filter((st) => !statementsOf(dev.template, upload).includes(st))) {
      for (const action of Array.isArray(s.Action) ? s.Action : [s.Action]) expect(action, JSON.stringify(s)).not.toMatch(/\*/);
    }
  });

  it("runs the functions on Node.js 22, arm64", () => {
    const fns = Object.values(dev.template.findResources("AWS::Lambda::Function")).map(
      (f) => (f as { Properties: { Runtime: string; Architectures?: string[]; Handler: string; Description?: string } }).Properties,
    );
    const ours = fns.filter((f) => typeof f.Description === "string" && f.Description.startsWith("meshplane"));
    expect(ours).toHaveLength(7);
    expect(ours.every((f) => f.Runtime === "nodejs22.x" && f.Architectures?.includes("arm64"))).toBe(true);
  });

  it("gives each function its own locally built bundle: index.mjs and the chunks it loads on demand", () => {
    const fns = Object.entries(dev.template.findResources("AWS::Lambda::Function"))
      .map(([id, f]) => [id, (f as { Properties: { Code: { S3Key?: string }; Handler: string; Description?: string } }).Properties] as const)
      .filter(([, f]) => typeof f.Description === "string" && f.Description.startsWith("meshplane"));
    const assets = fns.map(([id, f]) => [id, join(dev.app.outdir, `asset.${String(f.Code.S3Key).replace(/\.zip$/, "")}`)] as const);
    expect(new Set(assets.map(([, dir]) => dir)).size).toBe(7);
    expect(fns.map(([, f]) => f.Handler)).toEqual(Array(7).fill("index.handler"));
    for (const [id, dir] of assets) {
      expect(existsSync(join(dir, "index.mjs")), id).toBe(true);
      expect(
        readdirSync(join(dir, "chunks")).some((f) => f.endsWith(".mjs")),
        id,
      ).toBe(true);
    }
  });

  it("throttles the API stage and logs its access; CORS stays off", () => {
    dev.template.hasResourceProperties("AWS::ApiGatewayV2::Stage", {
      DefaultRouteSettings: { ThrottlingRateLimit: 500, ThrottlingBurstLimit: 1000 },
      AccessLogSettings: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp("requestId") },
    });
    dev.template.hasResourceProperties("AWS::ApiGatewayV2::Api", Match.not(Match.objectLike({ CorsConfiguration: Match.anyValue() })));
  });

  it("runs the push channel on a WebSocket API: its three routes to the push function, a throttled stage with access logs, and only the worker and the push function may reach connections", () => {
    dev.template.hasResourceProperties("AWS::ApiGatewayV2::Api", { ProtocolType: "WEBSOCKET", RouteSelectionExpression: "$request.body.action" });
    const routes = Object.values(dev.template.findResources("AWS::ApiGatewayV2::Route"))
      .map((r) => (r as { Properties: { ApiId: { Ref: string }; RouteKey: string; RouteResponseSelectionExpression?: string } }).Properties)
      .filter((r) => r.ApiId.Ref.startsWith("PushApi"));
    expect(routes.map((r) => r.RouteKey).sort()).toEqual(["$connect", "$default", "$disconnect"]);
    expect(routes.find((r) => r.RouteKey === "$default")?.RouteResponseSelectionExpression).toBe("$default");
    dev.template.hasResourceProperties("AWS::ApiGatewayV2::Stage", {
      StageName: "live",
      DefaultRouteSettings: { ThrottlingRateLimit: 500, ThrottlingBurstLimit: 1000 },
      AccessLogSettings: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp("connectionId") },
    });
    const managers = Object.entries(dev.template.findResources("AWS::IAM::Policy"))
      .filter(([, p]) => JSON.stringify(p).includes("execute-api:ManageConnections"))
      .flatMap(([, p]) => (p as { Properties: { Roles: { Ref: string }[] } }).Properties.Roles.map((r) => r.Ref.replace(/ServiceRole.*$/, "")));
    expect(managers.sort()).toEqual(["PushFunction", "WorkerFunction"]);
    dev.template.hasOutput("PushUrl", { Value: Match.anyValue() });
    // WebSocket stage logs need the region's API Gateway account role, set before the stage.
    dev.template.hasResourceProperties("AWS::ApiGateway::Account", { CloudWatchRoleArn: Match.anyValue() });
    const stage = Object.values(dev.template.findResources("AWS::ApiGatewayV2::Stage")).find(
      (r) => (r as { Properties: { StageName: string } }).Properties.StageName === "live",
    ) as { DependsOn?: string[] };
    expect(stage.DependsOn?.some((d) => d.startsWith("ApiGatewayAccount"))).toBe(true);
  });

  it("serves the console from a private bucket through CloudFront, with the API on the same origin, uncached", () => {
    dev.template.hasResourceProperties("AWS::S3::Bucket", {
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
      LoggingConfiguration: Match.anyValue(),
    });
    dev.template.resourceCountIs("AWS::CloudFront::OriginAccessControl", 1);
    const distribution = Object.values(dev.template.findResources("AWS::CloudFront::Distribution"))[0] as {
      Properties: {
        DistributionConfig: {
          DefaultRootObject: string;
          Logging?: unknown;
          DefaultCacheBehavior: { ViewerProtocolPolicy: string; ResponseHeadersPolicyId: unknown };
          CacheBehaviors: {
            PathPattern: string;
            CachePolicyId: string;
            OriginRequestPolicyId: string;
            ViewerProtocolPolicy: string;
            AllowedMethods: string[];
          }[];
        };
      };
    };
    const config = distribution.Properties.DistributionConfig;
    expect(config.DefaultRootObject).toBe("index.html");
    expect(config.Logging).toBeDefined();
    expect(config.DefaultCacheBehavior.ViewerProtocolPolicy).toBe("redirect-to-https");
    expect(config.CacheBehaviors.map((b) => b.PathPattern).sort()).toEqual([...API_PATHS].sort());
    for (const b of config.CacheBehaviors) {
      // Managed policies: CachingDisabled, AllViewerExceptHostHeader (Authorization reaches the API).
      expect(b).toMatchObject({
        CachePolicyId: "4135ea2d-6df8-44a3-9df3-4b5a84be39ad",
        OriginRequestPolicyId: "b689b0a8-53d0-40ab-baf2-68738e2966ac",
        ViewerProtocolPolicy: "https-only",
      });
      expect(b.AllowedMethods).toContain("PUT");
    }
    dev.template.hasResourceProperties("AWS::CloudFront::ResponseHeadersPolicy", {
      ResponseHeadersPolicyConfig: Match.objectLike({
        SecurityHeadersConfig: Match.objectLike({
          ContentSecurityPolicy: { ContentSecurityPolicy: CONSOLE_CSP, Override: true },
          FrameOptions: { FrameOption: "DENY", Override: true },
        }),
      }),
    });
    dev.template.hasOutput("ConsoleUrl", Match.anyValue());
  });

  it("alarms on dead letters, worker errors, API 5xx and throttles, to SNS with email", () => {
    const alarms = Object.values(dev.template.findResources("AWS::CloudWatch::Alarm"))
      .map((a) => (a as { Properties: { MetricName: string } }).Properties.MetricName)
      .sort();
    expect(alarms).toEqual(["ApproximateNumberOfMessagesVisible", "Errors", "Throttles", "Throttles", "5xx"].sort());
    dev.template.hasResourceProperties("AWS::SNS::Subscription", { Protocol: "email", Endpoint: "ops@example.com" });
    dev.template.resourceCountIs("AWS::CloudWatch::Dashboard", 1);
    dev.template.resourceCountIs("AWS::Events::Rule", 3);
    dev.template.hasOutput("ApiUrl", {});
    dev.template.hasOutput("JwksUrl", {});
  });

  it("has no unacknowledged cdk-nag AwsSolutions finding, and every acknowledgement gives a reason", () => {
    for (const { nagFindings } of [dev, prod]) {
      expect(nagFindings.map((f) => `${f.id}: ${String(f.entry.data).split("\n")[0]}`)).toEqual([]);
    }
    const suppressions = (dev.stack.templateOptions.metadata?.cdk_nag as { rules_to_suppress: { reason: string }[] } | undefined)?.rules_to_suppress ?? [];
    expect(suppressions.length).toBeGreaterThan(0);
    for (const s of suppressions) expect(s.reason.length).toBeGreaterThan(60);
  });
});
