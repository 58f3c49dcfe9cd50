import { CfnOutput, RemovalPolicy, Stack, type StackProps } from "aws-cdk-lib";
import type { RetentionDays } from "aws-cdk-lib/aws-logs";
import type { Construct } from "constructs";
import { MeshplaneAlarms } from "./alarms";
import { MeshplaneApi } from "./api";
import { MeshplaneCaSigner } from "./ca-signer";
import { MeshplaneConsole } from "./console";
import { MeshplaneData } from "./data";
import type { FunctionDefaults } from "./function";
import { MeshplaneKeys } from "./keys";
import { MeshplaneMaintenance } from "./maintenance";
import { MeshplaneMetrics } from "./metrics";
import { acknowledgeFindings } from "./nag";
import { MeshplaneOperatorCredential } from "./operator";
import { MeshplanePush } from "./push";
import { MeshplaneWorker } from "./worker";

export interface MeshplaneStackProps extends StackProps {
  /** `prod` keeps data on stack deletion (RETAIN) and turns on deletion protection. */
  stage: string;
  logRetention: RetentionDays;
  alarmEmail?: string;
  /** API stage throttling: steady requests per second and burst. */
  throttle?: { rateLimit: number; burstLimit: number };
}

/**
 * The hosted control plane: HTTP API → API function, FIFO queue → translate worker, one table, KMS
 * signing; one part per concern (docs/aws.md). The parts without a construct id of their own (keys,
 * API, worker, push, maintenance, operator credential) build in the stack itself, where their
 * resources always were: their logical IDs, and so the deployed resources, stay what they were.
 */
export class MeshplaneStack extends Stack {
  constructor(scope: Construct, id: string, props: MeshplaneStackProps) {
    super(scope, id, props);
    const prod = props.stage === "prod";
    const removalPolicy = prod ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
    const data = new MeshplaneData(this, "Data", { removalPolicy, deletionProtection: prod });
    const keys = new MeshplaneKeys(this, { removalPolicy });
    // Golden signals: a bucket and a standard queue of their own (docs/aws.md#metrics).
    const metrics = new MeshplaneMetrics(this, "Metrics", { removalPolicy });
    const defaults: FunctionDefaults = {
      environment: {
        ...metrics.environment,
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
        MESHPLANE_TABLE: data.table.tableName,
        MESHPLANE_QUEUE_URL: data.queue.queueUrl,
        MESHPLANE_KMS_KEY_IDS: keys.signingKey.keyArn,
        MESHPLANE_CA_KMS_KEY_ID: keys.caKey.keyArn,
      },
      logRetention: props.logRetention,
      removalPolicy,
    };
    const { table, queue } = data;

    const api = new MeshplaneApi(this, { defaults, table, queue, signingKey: keys.signingKey, ...(props.throttle ? { throttle: props.throttle } : {}) });
    // The API opens no CA key: it hands each CSR to the CA signer, which checks it against the table
    // and alone may decrypt (docs/shared-trust.md, "Who can sign").
    new MeshplaneCaSigner(this, "CaSigner", { defaults, tableArn: table.tableArn, caKey: keys.caKey, signingKey: keys.signingKey, caller: api.function });
    const worker = new MeshplaneWorker(this, { defaults, apiUrl: api.url, table, queue, signingKey: keys.signingKey, caKey: keys.caKey });
    const push = new MeshplanePush(this, { defaults, apiUrl: api.url, table, api: api.function, worker: worker.function });
    const maintenance = new MeshplaneMaintenance(this, { defaults, apiUrl: api.url, table, queue });
    metrics.addIngest(defaults);
    metrics.grantApi(api.function);
    metrics.grantCompaction(maintenance.function);
    const operator = new MeshplaneOperatorCredential(this, { defaults, table });
    // The web console: S3 behind CloudFront, with the API on the same origin (docs/console.md).
    new MeshplaneConsole(this, "Console", { apiUrl: api.stage.url, removalPolicy });
    new MeshplaneAlarms(this, "Alarms", {
      httpApi: api.httpApi,
      apiFn: api.function,
      worker: worker.function,
      dlq: data.dlq,
      ...(props.alarmEmail ? { alarmEmail: props.alarmEmail } : {}),
    });

    new CfnOutput(this, "ApiUrl", { value: api.url, description: "base URL of the API (agents' controlPlane.url)" });
    new CfnOutput(this, "JwksUrl", { value: `${api.url}/.well-known/jwks.json`, description: "snapshot signing keys to pin in agents" });
    new CfnOutput(this, "OperatorSecretArn", {
      value: operator.secret.secretArn,
      description: "the operator credential (aws secretsmanager get-secret-value)",
    });
    new CfnOutput(this, "DeadLetterQueueUrl", { value: data.dlq.queueUrl });
    new CfnOutput(this, "PushUrl", {
      value: push.stage.url,
      description: "the agents' push channel (controlPlane.pushUrl; set in the helm line the API returns)",
    });

    acknowledgeFindings(this);
  }
}
