import { CustomResource, Stack } from "aws-cdk-lib";
import type { ITable } from "aws-cdk-lib/aws-dynamodb";
import { PolicyStatement, ServicePrincipal } from "aws-cdk-lib/aws-iam";
import { LogGroup } from "aws-cdk-lib/aws-logs";
import { CfnRotationSchedule, Secret } from "aws-cdk-lib/aws-secretsmanager";
import { Provider } from "aws-cdk-lib/custom-resources";
import type { Construct } from "constructs";
import { FUNCTION_ENTRIES } from "./entries";
import { type FunctionDefaults, stackFunction } from "./function";
import { LEADING_KEYS, tableAccess } from "./table-access";

/**
 * The operator credential (docs/aws.md, "The operator credential"): a Secrets Manager secret holding
 * the `mpo_…` credential, whose hash a deploy-time custom resource stores in the table. The same
 * function is the secret's rotation function, which replaces the credential on demand (`aws
 * secretsmanager rotate-secret`) and revokes the old one in the same transaction.
 *
 * Built in `scope` itself, as the stack always had it, so the logical IDs stay the same.
 */
export class MeshplaneOperatorCredential {
  readonly secret: Secret;

  constructor(scope: Construct, props: { defaults: FunctionDefaults; table: ITable }) {
    this.secret = new Secret(scope, "OperatorCredential", {
      description: "meshplane operator credential (Bearer token for /v1/tenants)",
      generateSecretString: { passwordLength: 48, excludePunctuation: true, includeSpace: false },
      removalPolicy: props.defaults.removalPolicy,
    });
    const secretArn = this.secret.secretArn;
    const bootstrap = stackFunction(scope, "OperatorBootstrapFunction", props.defaults, {
      entry: FUNCTION_ENTRIES.bootstrap,
      description: "meshplane operator credential bootstrap and rotation",
      environment: { MESHPLANE_OPERATOR_SECRET_ARN: secretArn },
    });
    bootstrap.addToRolePolicy(tableAccess(props.table.tableArn, ["GetItem", "PutItem", "DeleteItem"], LEADING_KEYS.bootstrap));
    bootstrap.addToRolePolicy(
      new PolicyStatement({
        actions: ["secretsmanager:DescribeSecret", "secretsmanager:GetSecretValue", "secretsmanager:PutSecretValue", "secretsmanager:UpdateSecretVersionStage"],
        resources: [secretArn],
      }),
    );
    bootstrap.addPermission("SecretsManagerRotates", {
      principal: new ServicePrincipal("secretsmanager.amazonaws.com"),
      sourceArn: secretArn,
      sourceAccount: Stack.of(scope).account,
    });
    const rotation = new CfnRotationSchedule(scope, "OperatorCredentialRotation", {
      secretId: secretArn,
      rotationLambdaArn: bootstrap.functionArn,
      rotateImmediatelyOnUpdate: false,
    });
    rotation.node.addDependency(bootstrap.permissionsNode.findChild("SecretsManagerRotates"), bootstrap.role ?? bootstrap);
    const provider = new Provider(scope, "OperatorBootstrapProvider", {
      onEventHandler: bootstrap,
      logGroup: new LogGroup(scope, "ProviderLogs", { retention: props.defaults.logRetention, removalPolicy: props.defaults.removalPolicy }),
    });
    // `credential` re-runs the resource once on stacks bootstrapped before the mpo_ prefix, which replaces their credential by a prefixed one.
    new CustomResource(scope, "OperatorBootstrap", { serviceToken: provider.serviceToken, properties: { secret: secretArn, credential: "mpo_" } });
  }
}
