import { LogGroupLogDestination, WebSocketApi, WebSocketStage } from "aws-cdk-lib/aws-apigatewayv2";
import { WebSocketLambdaIntegration } from "aws-cdk-lib/aws-apigatewayv2-integrations";
import { AccessLogFormat, CfnAccount } from "aws-cdk-lib/aws-apigateway";
import type { ITable } from "aws-cdk-lib/aws-dynamodb";
import { ManagedPolicy, Role, ServicePrincipal } from "aws-cdk-lib/aws-iam";
import type { Function as LambdaFunction } from "aws-cdk-lib/aws-lambda";
import { LogGroup } from "aws-cdk-lib/aws-logs";
import type { Construct } from "constructs";
import { FUNCTION_ENTRIES } from "./entries";
import { type FunctionDefaults, type MeshplaneFunction, stackFunction } from "./function";
import { LEADING_KEYS, tableAccess } from "./table-access";

export interface MeshplanePushProps {
  defaults: FunctionDefaults;
  /** The API's URL, the audience of the agents' JWTs the push function checks. */
  apiUrl: string;
  table: ITable;
  /** Tells agents where the channel is: the helm line it returns names it. */
  api: LambdaFunction;
  /** Posts each new generation to the cluster's connections and forgets those that are gone. */
  worker: LambdaFunction;
}

/**
 * The agents' push channel (docs/push.md): a WebSocket API whose `$connect`, `$disconnect` and
 * `$default` routes go to the push function, on a throttled stage `live` with JSON access logs. Only
 * the push function and the worker may manage its connections.
 *
 * Built in `scope` itself, as the stack always had it, so the logical IDs stay the same.
 */
export class MeshplanePush {
  readonly function: MeshplaneFunction;
  readonly stage: WebSocketStage;

  constructor(scope: Construct, props: MeshplanePushProps) {
    this.function = stackFunction(scope, "PushFunction", props.defaults, {
      entry: FUNCTION_ENTRIES.push,
      description: "meshplane agent push channel (WebSocket API routes)",
      environment: { MESHPLANE_PUBLIC_URL: props.apiUrl },
    });
    const routes = new WebSocketLambdaIntegration("Push", this.function);
    const pushApi = new WebSocketApi(scope, "PushApi", {
      description: "meshplane agent push channel",
      connectRouteOptions: { integration: routes },
      disconnectRouteOptions: { integration: routes },
      // The answer to a ping goes back on the route's response.
      defaultRouteOptions: { integration: routes, returnResponse: true },
    });
    const logs = new LogGroup(scope, "PushAccessLogs", { retention: props.defaults.logRetention, removalPolicy: props.defaults.removalPolicy });
    // Unlike an HTTP API's, a WebSocket stage writes its logs through the region's API Gateway account
    // role: without one set, creating a stage with access logs fails. This sets it (as a REST API's
    // cloudWatchRole does), to a role that may only write API Gateway's logs.
    const apiGatewayLogsRole = new Role(scope, "ApiGatewayLogsRole", {
      assumedBy: new ServicePrincipal("apigateway.amazonaws.com"),
      managedPolicies: [ManagedPolicy.fromAwsManagedPolicyName("service-role/AmazonAPIGatewayPushToCloudWatchLogs")],
    });
    const apiGatewayAccount = new CfnAccount(scope, "ApiGatewayAccount", { cloudWatchRoleArn: apiGatewayLogsRole.roleArn });
    this.stage = new WebSocketStage(scope, "PushStage", {
      webSocketApi: pushApi,
      stageName: "live",
      autoDeploy: true,
      // 10,000 agents reconnect within 30 s after a deploy (docs/push.md): about 330 a second.
      throttle: { rateLimit: 500, burstLimit: 1000 },
      accessLogSettings: {
        destination: new LogGroupLogDestination(logs),
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: "$context.requestId",
            ip: "$context.identity.sourceIp",
            route: "$context.routeKey",
            connection: "$context.connectionId",
            status: "$context.status",
            error: "$context.integrationErrorMessage",
          }),
        ),
      },
    });
    this.stage.node.addDependency(apiGatewayAccount);
    this.function.addEnvironment("MESHPLANE_PUSH_ENDPOINT", this.stage.callbackUrl);
    this.function.addToRolePolicy(tableAccess(props.table.tableArn, ["GetItem", "Query", "PutItem", "DeleteItem"], LEADING_KEYS.push));
    this.stage.grantManagementApiAccess(this.function);
    props.worker.addEnvironment("MESHPLANE_PUSH_ENDPOINT", this.stage.callbackUrl);
    this.stage.grantManagementApiAccess(props.worker);
    props.worker.addToRolePolicy(tableAccess(props.table.tableArn, ["DeleteItem"], ["PUSH#*"]));
    props.api.addEnvironment("MESHPLANE_PUSH_URL", this.stage.url);
  }
}
