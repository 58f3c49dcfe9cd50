/**
 * The CDK app: `npx cdk synth` / `npx cdk deploy` (cdk.json runs this with tsx). Context:
 *   -c stage=prod            data retained and deletion-protected (default: dev)
 *   -c retentionDays=90      log retention (default: 30)
 *   -c alarmEmail=ops@x.com  subscribe an address to the alarms
 * Synthesis needs no AWS credentials: the stack is environment-agnostic unless CDK_DEFAULT_ACCOUNT
 * and CDK_DEFAULT_REGION are set (as `cdk deploy` sets them).
 */
import { App, Aspects } from "aws-cdk-lib";
import { RetentionDays } from "aws-cdk-lib/aws-logs";
import { AwsSolutionsChecks } from "cdk-nag";
import { MeshplaneStack } from "../lib/stack";

const app = new App();
const stage = String(app.node.tryGetContext("stage") ?? "dev");
const retention = Number(app.node.tryGetContext("retentionDays") ?? 30);
const days = Object.values(RetentionDays).filter((v): v is RetentionDays => typeof v === "number");
if (!days.includes(retention as RetentionDays)) throw new Error(`retentionDays must be one of ${days.join(", ")}`);
const alarmEmail = app.node.tryGetContext("alarmEmail") as string | undefined;
const account = process.env.CDK_DEFAULT_ACCOUNT;
const region = process.env.CDK_DEFAULT_REGION;
new MeshplaneStack(app, `meshplane-${stage}`, {
  stage,
  logRetention: retention as RetentionDays,
  ...(alarmEmail ? { alarmEmail } : {}),
  ...(account && region ? { env: { account, region } } : {}),
});
Aspects.of(app).add(new AwsSolutionsChecks({ verbose: true }));
