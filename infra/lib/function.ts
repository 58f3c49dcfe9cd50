import { Duration, RemovalPolicy } from "aws-cdk-lib";
import { Architecture, LoggingFormat, Runtime, Tracing } from "aws-cdk-lib/aws-lambda";
import { LogLevel, NodejsFunction, OutputFormat } from "aws-cdk-lib/aws-lambda-nodejs";
import { LogGroup, type RetentionDays } from "aws-cdk-lib/aws-logs";
import { Construct } from "constructs";
import { join } from "node:path";

const ROOT = join(import.meta.dirname, "../..");

export interface MeshplaneFunctionProps {
  /** Entry file, relative to the repository root (e.g. functions/api/handler.ts). */
  entry: string;
  description: string;
  environment: Record<string, string>;
  memorySize?: number;
  timeout?: Duration;
  logRetention: RetentionDays;
  removalPolicy: RemovalPolicy;
}

/**
 * A meshplane Lambda function: bundled locally with esbuild (no Docker), ESM, minified, with source
 * maps, on Node.js 22 and arm64, JSON logs into a log group the stack owns (so retention and removal
 * are set here, not left to Lambda's implicit group). The bundle's size is printed at synthesis.
 */
export class MeshplaneFunction extends NodejsFunction {
  constructor(scope: Construct, id: string, props: MeshplaneFunctionProps) {
    const logGroup = new LogGroup(scope, `${id}Logs`, { retention: props.logRetention, removalPolicy: props.removalPolicy });
    super(scope, id, {
      entry: join(ROOT, props.entry),
      projectRoot: ROOT,
      depsLockFilePath: join(ROOT, "package-lock.json"),
      description: props.description,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout ?? Duration.seconds(29),
      environment: { ...props.environment, NODE_OPTIONS: "--enable-source-maps" },
      logGroup,
      loggingFormat: LoggingFormat.JSON,
      tracing: Tracing.ACTIVE,
      bundling: {
        format: OutputFormat.ESM,
        target: "node22",
        minify: true,
        sourceMap: true,
        logLevel: LogLevel.INFO,
        // ESM bundles of CommonJS dependencies need a require() in scope.
        banner: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
        mainFields: ["module", "main"],
      },
    });
  }
}
