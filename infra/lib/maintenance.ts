import { Duration } from "aws-cdk-lib";
import type { ITable } from "aws-cdk-lib/aws-dynamodb";
import { Rule, RuleTargetInput, Schedule } from "aws-cdk-lib/aws-events";
import { LambdaFunction } from "aws-cdk-lib/aws-events-targets";
import { PolicyStatement } from "aws-cdk-lib/aws-iam";
import type { IQueue } from "aws-cdk-lib/aws-sqs";
import type { Construct } from "constructs";
import { FUNCTION_ENTRIES } from "./entries";
import { type FunctionDefaults, type MeshplaneFunction, stackFunction } from "./function";
import { LEADING_KEYS, tableAccess } from "./table-access";

export interface MeshplaneMaintenanceProps {
  defaults: FunctionDefaults;
  apiUrl: string;
  table: ITable;
  queue: IQueue;
}

/**
 * Scheduled upkeep, one function on two schedules: `reconcile` every 5 minutes re-enqueues lost
 * translate jobs, `refresh` every 6 hours re-signs snapshots before they expire.
 *
 * Built in `scope` itself, as the stack always had it, so the logical IDs stay the same.
 */
export class MeshplaneMaintenance {
  readonly function: MeshplaneFunction;

  constructor(scope: Construct, props: MeshplaneMaintenanceProps) {
    this.function = stackFunction(scope, "MaintenanceFunction", props.defaults, {
      entry: FUNCTION_ENTRIES.maintenance,
      description: "meshplane reconcile and refresh",
      environment: { MESHPLANE_PUBLIC_URL: props.apiUrl },
      timeout: Duration.minutes(5),
    });
    this.function.addToRolePolicy(tableAccess(props.table.tableArn, ["GetItem", "Query"], LEADING_KEYS.maintenance));
    this.function.addToRolePolicy(new PolicyStatement({ actions: ["sqs:SendMessage"], resources: [props.queue.queueArn] }));
    new Rule(scope, "ReconcileSchedule", {
      schedule: Schedule.rate(Duration.minutes(5)),
      targets: [new LambdaFunction(this.function, { event: RuleTargetInput.fromObject({ task: "reconcile" }) })],
    });
    new Rule(scope, "RefreshSchedule", {
      schedule: Schedule.rate(Duration.hours(6)),
      targets: [new LambdaFunction(this.function, { event: RuleTargetInput.fromObject({ task: "refresh" }) })],
    });
  }
}
