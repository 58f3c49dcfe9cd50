import { Duration } from "aws-cdk-lib";
import { PolicyStatement } from "aws-cdk-lib/aws-iam";
import type { IKey } from "aws-cdk-lib/aws-kms";
import type { Function as LambdaFunction } from "aws-cdk-lib/aws-lambda";
import { Construct } from "constructs";
import { FUNCTION_ENTRIES } from "./entries";
import { type FunctionDefaults, type MeshplaneFunction, stackFunction } from "./function";
import { CA_CONTEXT } from "./keys";
import { LEADING_KEYS, tableAccess } from "./table-access";

export interface MeshplaneCaSignerProps {
  defaults: FunctionDefaults;
  tableArn: string;
  /** Seals the CA keys; the signer may only open them, and only under the CA encryption context. */
  caKey: IKey;
  /** The snapshot signing key: the signer reads its public keys to check the directive it is shown. */
  signingKey: IKey;
  /** The one function that may invoke the signer (the API). */
  caller: LambdaFunction;
}

/**
 * The CA signer (functions/trust/ca-signer): a function with no route, invoked by the API for each CSR,
 * and the only holder of kms:Decrypt on the CA key. It checks the request against the table itself
 * (docs/shared-trust.md, "Who can sign"), so the internet-facing API cannot open a CA key at will.
 */
export class MeshplaneCaSigner extends Construct {
  readonly function: MeshplaneFunction;

  constructor(scope: Construct, id: string, props: MeshplaneCaSignerProps) {
    super(scope, id);
    this.function = stackFunction(this, "Function", props.defaults, {
      entry: FUNCTION_ENTRIES.caSigner,
      description: "meshplane CA signer (mesh intermediates; invoked by the API only)",
      // Within the API's own 29 s.
      timeout: Duration.seconds(20),
    });
    // Reads the cluster's published snapshot, the VirtualMesh and its CA; claims each CSR (and gives
    // back the claim of one it then refuses).
    this.function.addToRolePolicy(tableAccess(props.tableArn, ["GetItem", "Query", "PutItem", "DeleteItem"], LEADING_KEYS.caSigner));
    this.function.addToRolePolicy(new PolicyStatement({ actions: ["kms:Decrypt"], resources: [props.caKey.keyArn], conditions: CA_CONTEXT }));
    this.function.addToRolePolicy(new PolicyStatement({ actions: ["kms:GetPublicKey"], resources: [props.signingKey.keyArn] }));
    props.caller.addToRolePolicy(new PolicyStatement({ actions: ["lambda:InvokeFunction"], resources: [this.function.functionArn] }));
    props.caller.addEnvironment("MESHPLANE_CA_SIGNER_FUNCTION", this.function.functionName);
  }
}
