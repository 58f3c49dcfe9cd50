import { Duration } from "aws-cdk-lib";
import type { ITable } from "aws-cdk-lib/aws-dynamodb";
import { PolicyStatement } from "aws-cdk-lib/aws-iam";
import type { IKey } from "aws-cdk-lib/aws-kms";
import { SqsEventSource } from "aws-cdk-lib/aws-lambda-event-sources";
import type { Queue } from "aws-cdk-lib/aws-sqs";
import type { Construct } from "constructs";
import { FUNCTION_ENTRIES } from "./entries";
import { type FunctionDefaults, type MeshplaneFunction, stackFunction } from "./function";
import { CA_CONTEXT } from "./keys";
import { LEADING_KEYS, tableAccess } from "./table-access";

export interface MeshplaneWorkerProps {
  defaults: FunctionDefaults;
  /** The API's URL, the audience of the snapshots the worker signs. */
  apiUrl: string;
  table: ITable;
  queue: Queue;
  signingKey: IKey;
  caKey: IKey;
}

/**
 * The translate worker on the FIFO translate queue: batches of 10 with partial batch failures, at
 * most 20 at once. It signs snapshots, and makes VirtualMesh CAs and seals their keys; it can never
 * open one.
 *
 * Built in `scope` itself, as the stack always had it, so the logical IDs stay the same.
 */
export class MeshplaneWorker {
  readonly function: MeshplaneFunction;

  constructor(scope: Construct, props: MeshplaneWorkerProps) {
    this.function = stackFunction(scope, "WorkerFunction", props.defaults, {
      entry: FUNCTION_ENTRIES.worker,
      description: "meshplane translate worker",
      environment: { MESHPLANE_PUBLIC_URL: props.apiUrl },
      timeout: Duration.seconds(120),
    });
    this.function.addEventSource(new SqsEventSource(props.queue, { batchSize: 10, reportBatchItemFailures: true, maxConcurrency: 20 }));
    this.function.addToRolePolicy(
      tableAccess(props.table.tableArn, ["GetItem", "BatchGetItem", "Query", "PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem"], LEADING_KEYS.worker),
    );
    this.function.addToRolePolicy(new PolicyStatement({ actions: ["kms:Sign", "kms:GetPublicKey"], resources: [props.signingKey.keyArn] }));
    this.function.addToRolePolicy(new PolicyStatement({ actions: ["kms:GenerateDataKey"], resources: [props.caKey.keyArn], conditions: CA_CONTEXT }));
  }
}
