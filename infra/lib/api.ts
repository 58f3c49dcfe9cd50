import { HttpApi, HttpStage, LogGroupLogDestination } from "aws-cdk-lib/aws-apigatewayv2";
import { HttpLambdaIntegration } from "aws-cdk-lib/aws-apigatewayv2-integrations";
import { AccessLogFormat } from "aws-cdk-lib/aws-apigateway";
import { PolicyStatement } from "aws-cdk-lib/aws-iam";
import type { IKey } from "aws-cdk-lib/aws-kms";
import { LogGroup } from "aws-cdk-lib/aws-logs";
import type { ITable } from "aws-cdk-lib/aws-dynamodb";
import type { IQueue } from "aws-cdk-lib/aws-sqs";
import type { Construct } from "constructs";
import { FUNCTION_ENTRIES } from "./entries";
import { type FunctionDefaults, type MeshplaneFunction, stackFunction } from "./function";
import { LEADING_KEYS, tableAccess } from "./table-access";

export interface MeshplaneApiProps {
  defaults: FunctionDefaults;
  table: ITable;
  queue: IQueue;
  signingKey: IKey;
  /** API stage throttling: steady requests per second and burst (500 and 1,000 by default). */
  throttle?: { rateLimit: number; burstLimit: number };
}

/**
 * The REST and agent API: the API function behind an HTTP API with one `$default` stage, throttled,
 * with JSON access logs. The function may use the table under its leading keys, enqueue translate
 * jobs and read the snapshot key's public keys — it never signs, and opens no CA key.
 *
 * Built in `scope` itself, as the stack always had it, so the logical IDs stay the same.
 */
export class MeshplaneApi {
  readonly function: MeshplaneFunction;
  readonly httpApi: HttpApi;
  readonly stage: HttpStage;
  /** The stage's URL without its trailing slash: agents' `controlPlane.url`. */
  readonly url: string;

  constructor(scope: Construct, props: MeshplaneApiProps) {
    this.function = stackFunction(scope, "ApiFunction", props.defaults, { entry: FUNCTION_ENTRIES.api, description: "meshplane REST and agent API" });
    this.httpApi = new HttpApi(scope, "HttpApi", {
      description: "meshplane API",
      createDefaultStage: false,
      defaultIntegration: new HttpLambdaIntegration("Api", this.function),
    });
    const accessLogs = new LogGroup(scope, "ApiAccessLogs", { retention: props.defaults.logRetention, removalPolicy: props.defaults.removalPolicy });
    this.stage = new HttpStage(scope, "ApiStage", {
      httpApi: this.httpApi,
      stageName: "$default",
      autoDeploy: true,
      throttle: props.throttle ?? { rateLimit: 500, burstLimit: 1000 },
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: "$context.requestId",
            ip: "$context.identity.sourceIp",
            method: "$context.httpMethod",
            path: "$context.path",
            status: "$context.status",
            latency: "$context.responseLatency",
            error: "$context.integrationErrorMessage",
          }),
        ),
      },
    });
    this.url = this.stage.url.replace(/\/$/, "");
    this.function.addEnvironment("MESHPLANE_PUBLIC_URL", this.url);
    this.function.addToRolePolicy(
      tableAccess(
        props.table.tableArn,
        ["GetItem", "BatchGetItem", "Query", "PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "ConditionCheckItem"],
        LEADING_KEYS.api,
      ),
    );
    this.function.addToRolePolicy(new PolicyStatement({ actions: ["sqs:SendMessage"], resources: [props.queue.queueArn] }));
    // The API publishes public keys only; it never signs.
    this.function.addToRolePolicy(new PolicyStatement({ actions: ["kms:GetPublicKey"], resources: [props.signingKey.keyArn] }));
  }
}
