import { CfnOutput, CustomResource, Duration, RemovalPolicy, Stack, type StackProps } from "aws-cdk-lib";
import { HttpApi, HttpStage, LogGroupLogDestination, WebSocketApi, WebSocketStage } from "aws-cdk-lib/aws-apigatewayv2";
import { HttpLambdaIntegration, WebSocketLambdaIntegration } from "aws-cdk-lib/aws-apigatewayv2-integrations";
import { AccessLogFormat, CfnAccount } from "aws-cdk-lib/aws-apigateway";
import { Rule, RuleTargetInput, Schedule } from "aws-cdk-lib/aws-events";
import { LambdaFunction } from "aws-cdk-lib/aws-events-targets";
import { ManagedPolicy, PolicyStatement, Role, ServicePrincipal } from "aws-cdk-lib/aws-iam";
import { Key, KeySpec, KeyUsage } from "aws-cdk-lib/aws-kms";
import { SqsEventSource } from "aws-cdk-lib/aws-lambda-event-sources";
import { LogGroup, RetentionDays } from "aws-cdk-lib/aws-logs";
import { CfnRotationSchedule, Secret } from "aws-cdk-lib/aws-secretsmanager";
import { Provider } from "aws-cdk-lib/custom-resources";
import type { Construct } from "constructs";
import { MeshplaneAlarms } from "./alarms";
import { MeshplaneConsole } from "./console";
import { MeshplaneData } from "./data";
import { FUNCTION_ENTRIES } from "./entries";
import { MeshplaneFunction } from "./function";
import { acknowledgeFindings } from "./nag";
import { MeshplaneCaSigner } from "./ca-signer";
import { tableAccess } from "./table-access";

export interface MeshplaneStackProps extends StackProps {
  /** `prod` keeps data on stack deletion (RETAIN) and turns on deletion protection. */
  stage: string;
  logRetention: RetentionDays;
  alarmEmail?: string;
  /** API stage throttling: steady requests per second and burst. */
  throttle?: { rateLimit: number; burstLimit: number };
}

/** Item keys each function may touch (dynamodb:LeadingKeys); see docs/aws.md for why the API's set is wide. */
const LEADING_KEYS = {
  api: ["T#*", "TOKEN#*", "BOOT#*", "TENANTS", "OPERATOR"],
  worker: ["T#*"],
  maintenance: ["T#*", "TENANTS"],
  bootstrap: ["TOKEN#*", "OPERATOR"],
  // Push connections: per cluster under the tenant, and a lookup by connection id (a disconnect names only that).
  push: ["T#*", "PUSH#*"],
};

/** The hosted control plane: HTTP API → API function, FIFO queue → translate worker, one table, KMS signing. */
export class MeshplaneStack extends Stack {
  constructor(scope: Construct, id: string, props: MeshplaneStackProps) {
    super(scope, id, props);
    const prod = props.stage === "prod";
    const removalPolicy = prod ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
    const data = new MeshplaneData(this, "Data", { removalPolicy, deletionProtection: prod });
    const signingKey = new Key(this, "SnapshotSigningKey", {
      description: "meshplane snapshot signing (ES256)",
      keySpec: KeySpec.ECC_NIST_P256,
      keyUsage: KeyUsage.SIGN_VERIFY,
      removalPolicy,
    });
    // Seals the VirtualMeshes' CA private keys (envelope encryption, a data key per CA key, the
    // tenant and VirtualMesh bound in as encryption context). Only the worker seals, only the CA signer opens.
    const caKey = new Key(this, "CaKeyEncryptionKey", {
      description: "meshplane VirtualMesh CA keys (envelope encryption)",
      enableKeyRotation: true,
      removalPolicy,
    });
    const caContext = { StringEquals: { "kms:EncryptionContext:purpose": "meshplane-ca" } };
    const operatorSecret = new Secret(this, "OperatorCredential", {
      description: "meshplane operator credential (Bearer token for /v1/tenants)",
      generateSecretString: { passwordLength: 48, excludePunctuation: true, includeSpace: false },
      removalPolicy,
    });

    const common = {
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
      MESHPLANE_TABLE: data.table.tableName,
      MESHPLANE_QUEUE_URL: data.queue.queueUrl,
      MESHPLANE_KMS_KEY_IDS: signingKey.keyArn,
      MESHPLANE_CA_KMS_KEY_ID: caKey.keyArn,
    };
    const fn = (name: string, entry: string, description: string, extra: Record<string, string> = {}, timeout?: Duration) =>
      new MeshplaneFunction(this, name, { entry, description, environment: { ...common, ...extra }, logRetention: props.logRetention, removalPolicy, ...(timeout ? { timeout } : {}) });

    // --- the API
    const apiFn = fn("ApiFunction", FUNCTION_ENTRIES.api, "meshplane REST and agent API");
    const httpApi = new HttpApi(this, "HttpApi", {
      description: "meshplane API",
      createDefaultStage: false,
      defaultIntegration: new HttpLambdaIntegration("Api", apiFn),
    });
    const accessLogs = new LogGroup(this, "ApiAccessLogs", { retention: props.logRetention, removalPolicy });
    const stage = new HttpStage(this, "ApiStage", {
      httpApi,
      stageName: "$default",
      autoDeploy: true,
      throttle: props.throttle ?? { rateLimit: 500, burstLimit: 1000 },
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        format: AccessLogFormat.custom(
          JSON.stringify({ requestId: "$context.requestId", ip: "$context.identity.sourceIp", method: "$context.httpMethod", path: "$context.path", status: "$context.status", latency: "$context.responseLatency", error: "$context.integrationErrorMessage" }),
        ),
      },
    });
    const apiUrl = stage.url.replace(/\/$/, "");
    apiFn.addEnvironment("MESHPLANE_PUBLIC_URL", apiUrl);
    apiFn.addToRolePolicy(tableAccess(data.table.tableArn, ["GetItem", "BatchGetItem", "Query", "PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "ConditionCheckItem"], LEADING_KEYS.api));
    apiFn.addToRolePolicy(new PolicyStatement({ actions: ["sqs:SendMessage"], resources: [data.queue.queueArn] }));
    // The API publishes public keys only; it never signs.
    apiFn.addToRolePolicy(new PolicyStatement({ actions: ["kms:GetPublicKey"], resources: [signingKey.keyArn] }));
    // The API opens no CA key: it hands each CSR to the CA signer, which checks it against the table
    // and alone may decrypt (docs/shared-trust.md, "Who can sign").
    new MeshplaneCaSigner(this, "CaSigner", { environment: common, logRetention: props.logRetention, removalPolicy, tableArn: data.table.tableArn, caKey, signingKey, caller: apiFn });

    // --- the translate worker
    const worker = fn("WorkerFunction", FUNCTION_ENTRIES.worker, "meshplane translate worker", { MESHPLANE_PUBLIC_URL: apiUrl }, Duration.seconds(120));
    worker.addEventSource(new SqsEventSource(data.queue, { batchSize: 10, reportBatchItemFailures: true, maxConcurrency: 20 }));
    worker.addToRolePolicy(tableAccess(data.table.tableArn, ["GetItem", "BatchGetItem", "Query", "PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem"], LEADING_KEYS.worker));
    worker.addToRolePolicy(new PolicyStatement({ actions: ["kms:Sign", "kms:GetPublicKey"], resources: [signingKey.keyArn] }));
    // The worker makes VirtualMesh CAs and seals their keys; it can never open one.
    worker.addToRolePolicy(new PolicyStatement({ actions: ["kms:GenerateDataKey"], resources: [caKey.keyArn], conditions: caContext }));

    // --- the push channel (docs/push.md): agents hold WebSockets here and are told each new generation
    const pushFn = fn("PushFunction", FUNCTION_ENTRIES.push, "meshplane agent push channel (WebSocket API routes)", { MESHPLANE_PUBLIC_URL: apiUrl });
    const pushRoutes = new WebSocketLambdaIntegration("Push", pushFn);
    const pushApi = new WebSocketApi(this, "PushApi", {
      description: "meshplane agent push channel",
      connectRouteOptions: { integration: pushRoutes },
      disconnectRouteOptions: { integration: pushRoutes },
      // The answer to a ping goes back on the route's response.
      defaultRouteOptions: { integration: pushRoutes, returnResponse: true },
    });
    const pushLogs = new LogGroup(this, "PushAccessLogs", { retention: props.logRetention, removalPolicy });
    // Unlike an HTTP API's, a WebSocket stage writes its logs through the region's API Gateway account
    // role: without one set, creating a stage with access logs fails. This sets it (as a REST API's
    // cloudWatchRole does), to a role that may only write API Gateway's logs.
    const apiGatewayLogsRole = new Role(this, "ApiGatewayLogsRole", {
      assumedBy: new ServicePrincipal("apigateway.amazonaws.com"),
      managedPolicies: [ManagedPolicy.fromAwsManagedPolicyName("service-role/AmazonAPIGatewayPushToCloudWatchLogs")],
    });
    const apiGatewayAccount = new CfnAccount(this, "ApiGatewayAccount", { cloudWatchRoleArn: apiGatewayLogsRole.roleArn });
    const pushStage = new WebSocketStage(this, "PushStage", {
      webSocketApi: pushApi,
      stageName: "live",
      autoDeploy: true,
      // 10,000 agents reconnect within 30 s after a deploy (docs/push.md): about 330 a second.
      throttle: { rateLimit: 500, burstLimit: 1000 },
      accessLogSettings: {
        destination: new LogGroupLogDestination(pushLogs),
        format: AccessLogFormat.custom(JSON.stringify({ requestId: "$context.requestId", ip: "$context.identity.sourceIp", route: "$context.routeKey", connection: "$context.connectionId", status: "$context.status", error: "$context.integrationErrorMessage" })),
      },
    });
    pushStage.node.addDependency(apiGatewayAccount);
    pushFn.addEnvironment("MESHPLANE_PUSH_ENDPOINT", pushStage.callbackUrl);
    pushFn.addToRolePolicy(tableAccess(data.table.tableArn, ["GetItem", "Query", "PutItem", "DeleteItem"], LEADING_KEYS.push));
    pushStage.grantManagementApiAccess(pushFn);
    // The worker posts each new generation to the cluster's connections and forgets those that are gone.
    worker.addEnvironment("MESHPLANE_PUSH_ENDPOINT", pushStage.callbackUrl);
    pushStage.grantManagementApiAccess(worker);
    worker.addToRolePolicy(tableAccess(data.table.tableArn, ["DeleteItem"], ["PUSH#*"]));
    // The helm line tells agents where the channel is.
    apiFn.addEnvironment("MESHPLANE_PUSH_URL", pushStage.url);

    // --- scheduled upkeep: re-enqueue lost jobs; re-sign snapshots before they expire
    const maintenance = fn("MaintenanceFunction", FUNCTION_ENTRIES.maintenance, "meshplane reconcile and refresh", { MESHPLANE_PUBLIC_URL: apiUrl }, Duration.minutes(5));
    maintenance.addToRolePolicy(tableAccess(data.table.tableArn, ["GetItem", "Query"], LEADING_KEYS.maintenance));
    maintenance.addToRolePolicy(new PolicyStatement({ actions: ["sqs:SendMessage"], resources: [data.queue.queueArn] }));
    new Rule(this, "ReconcileSchedule", { schedule: Schedule.rate(Duration.minutes(5)), targets: [new LambdaFunction(maintenance, { event: RuleTargetInput.fromObject({ task: "reconcile" }) })] });
    new Rule(this, "RefreshSchedule", { schedule: Schedule.rate(Duration.hours(6)), targets: [new LambdaFunction(maintenance, { event: RuleTargetInput.fromObject({ task: "refresh" }) })] });

    // --- the operator credential: its hash is stored by a deploy-time custom resource, and replaced
    // (the old one revoked in the same transaction) by the same function as the secret's rotation
    // function, on demand: `aws secretsmanager rotate-secret` (docs/aws.md)
    const bootstrap = fn("OperatorBootstrapFunction", FUNCTION_ENTRIES.bootstrap, "meshplane operator credential bootstrap and rotation", { MESHPLANE_OPERATOR_SECRET_ARN: operatorSecret.secretArn });
    bootstrap.addToRolePolicy(tableAccess(data.table.tableArn, ["GetItem", "PutItem", "DeleteItem"], LEADING_KEYS.bootstrap));
    bootstrap.addToRolePolicy(
      new PolicyStatement({
        actions: ["secretsmanager:DescribeSecret", "secretsmanager:GetSecretValue", "secretsmanager:PutSecretValue", "secretsmanager:UpdateSecretVersionStage"],
        resources: [operatorSecret.secretArn],
      }),
    );
    bootstrap.addPermission("SecretsManagerRotates", { principal: new ServicePrincipal("secretsmanager.amazonaws.com"), sourceArn: operatorSecret.secretArn, sourceAccount: this.account });
    const rotation = new CfnRotationSchedule(this, "OperatorCredentialRotation", { secretId: operatorSecret.secretArn, rotationLambdaArn: bootstrap.functionArn, rotateImmediatelyOnUpdate: false });
    rotation.node.addDependency(bootstrap.permissionsNode.findChild("SecretsManagerRotates"), bootstrap.role ?? bootstrap);
    const provider = new Provider(this, "OperatorBootstrapProvider", { onEventHandler: bootstrap, logGroup: new LogGroup(this, "ProviderLogs", { retention: props.logRetention, removalPolicy }) });
    // `credential` re-runs the resource once on stacks bootstrapped before the mpo_ prefix, which replaces their credential by a prefixed one.
    new CustomResource(this, "OperatorBootstrap", { serviceToken: provider.serviceToken, properties: { secret: operatorSecret.secretArn, credential: "mpo_" } });

    // --- the web console: S3 behind CloudFront, with the API on the same origin (docs/console.md)
    new MeshplaneConsole(this, "Console", { apiUrl: stage.url, removalPolicy });

    new MeshplaneAlarms(this, "Alarms", { httpApi, apiFn, worker, dlq: data.dlq, ...(props.alarmEmail ? { alarmEmail: props.alarmEmail } : {}) });

    new CfnOutput(this, "ApiUrl", { value: apiUrl, description: "base URL of the API (agents' controlPlane.url)" });
    new CfnOutput(this, "JwksUrl", { value: `${apiUrl}/.well-known/jwks.json`, description: "snapshot signing keys to pin in agents" });
    new CfnOutput(this, "OperatorSecretArn", { value: operatorSecret.secretArn, description: "the operator credential (aws secretsmanager get-secret-value)" });
    new CfnOutput(this, "DeadLetterQueueUrl", { value: data.dlq.queueUrl });
    new CfnOutput(this, "PushUrl", { value: pushStage.url, description: "the agents' push channel (controlPlane.pushUrl; set in the helm line the API returns)" });

    acknowledgeFindings(this);
  }
}
