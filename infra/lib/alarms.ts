import { Duration } from "aws-cdk-lib";
import type { HttpApi } from "aws-cdk-lib/aws-apigatewayv2";
import { Alarm, ComparisonOperator, Dashboard, GraphWidget, type IMetric, TreatMissingData } from "aws-cdk-lib/aws-cloudwatch";
import { SnsAction } from "aws-cdk-lib/aws-cloudwatch-actions";
import { Alias } from "aws-cdk-lib/aws-kms";
import type { Function as LambdaFunction } from "aws-cdk-lib/aws-lambda";
import { Topic } from "aws-cdk-lib/aws-sns";
import { EmailSubscription } from "aws-cdk-lib/aws-sns-subscriptions";
import type { Queue } from "aws-cdk-lib/aws-sqs";
import { Construct } from "constructs";

export interface MeshplaneAlarmsProps {
  httpApi: HttpApi;
  apiFn: LambdaFunction;
  worker: LambdaFunction;
  dlq: Queue;
  alarmEmail?: string;
}

/**
 * What wakes someone up: a job in the dead-letter queue, worker errors, API 5xx and Lambda throttles;
 * all to one SNS topic (with an email subscription when an address is given), and a small dashboard.
 */
export class MeshplaneAlarms extends Construct {
  readonly topic: Topic;

  constructor(scope: Construct, id: string, props: MeshplaneAlarmsProps) {
    super(scope, id);
    this.topic = new Topic(this, "Topic", { enforceSSL: true, masterKey: Alias.fromAliasName(this, "SnsKey", "alias/aws/sns") });
    if (props.alarmEmail) this.topic.addSubscription(new EmailSubscription(props.alarmEmail));
    const period = Duration.minutes(5);
    const alarms: [string, IMetric, number, string][] = [
      ["DeadLetters", props.dlq.metricApproximateNumberOfMessagesVisible({ period }), 1, "translate jobs failed 5 times and were parked in the DLQ"],
      ["WorkerErrors", props.worker.metricErrors({ period }), 1, "the translate worker failed"],
      ["Api5xx", props.httpApi.metricServerError({ period }), 5, "the API answered 5xx"],
      ["ApiThrottles", props.apiFn.metricThrottles({ period }), 1, "the API function was throttled"],
      ["WorkerThrottles", props.worker.metricThrottles({ period }), 1, "the translate worker was throttled"],
    ];
    for (const [name, metric, threshold, description] of alarms) {
      const alarm = new Alarm(this, name, {
        metric,
        threshold,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        alarmDescription: `meshplane: ${description}`,
      });
      alarm.addAlarmAction(new SnsAction(this.topic));
    }
    new Dashboard(this, "Dashboard", {
      widgets: [
        [
          new GraphWidget({
            title: "API requests and errors",
            left: [props.httpApi.metricCount({ period }), props.httpApi.metricClientError({ period }), props.httpApi.metricServerError({ period })],
          }),
          new GraphWidget({ title: "API latency", left: [props.httpApi.metricLatency({ period })] }),
        ],
        [
          new GraphWidget({
            title: "Worker invocations and errors",
            left: [props.worker.metricInvocations({ period }), props.worker.metricErrors({ period })],
          }),
          new GraphWidget({ title: "Worker duration", left: [props.worker.metricDuration({ period })] }),
          new GraphWidget({ title: "Dead-letter queue", left: [props.dlq.metricApproximateNumberOfMessagesVisible({ period })] }),
        ],
      ],
    });
  }
}
