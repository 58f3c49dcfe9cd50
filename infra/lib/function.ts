import { AssetHashType, type BundlingOptions, DockerImage, Duration, type ILocalBundling, type RemovalPolicy } from "aws-cdk-lib";
import { Architecture, Code, Function as LambdaFunction, LoggingFormat, Runtime, Tracing } from "aws-cdk-lib/aws-lambda";
import { LogGroup, type RetentionDays } from "aws-cdk-lib/aws-logs";
import type { Construct } from "constructs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { ROOT } from "./bundle";

export interface MeshplaneFunctionProps {
  /** Entry file, relative to the repository root (e.g. functions/entries/api.ts). */
  entry: string;
  description: string;
  environment: Record<string, string>;
  memorySize?: number;
  timeout?: Duration;
  logRetention: RetentionDays;
  removalPolicy: RemovalPolicy;
}

/**
 * Bundling done on this machine (never Docker): infra/lib/bundle.ts into the asset directory —
 * `index.mjs`, the chunks it loads on demand, source maps. CDK tells assets apart by these fields,
 * so `entry` is one of them.
 */
class LocalBundling implements BundlingOptions {
  // Required by the API, never used: local bundling either succeeds or fails the synthesis.
  readonly image = DockerImage.fromRegistry("unused");
  readonly local: ILocalBundling;

  constructor(readonly entry: string) {
    this.local = {
      tryBundle(outputDir) {
        const run = spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "infra/bin/bundle.ts"), entry, outputDir], {
          cwd: ROOT,
          stdio: ["ignore", "inherit", "inherit"],
        });
        if (run.status !== 0) throw new Error(`bundling ${entry} failed (${run.error?.message ?? `exit ${run.status}`})`);
        return true;
      },
    };
  }
}

/** The function's code, hashed by the bundle: a change that leaves the bundle as it was deploys nothing. */
const bundledCode = (entry: string): Code => Code.fromAsset(ROOT, { assetHashType: AssetHashType.OUTPUT, bundling: new LocalBundling(entry) });

/**
 * A meshplane Lambda function: bundled locally with esbuild (no Docker; see infra/lib/bundle.ts), ESM
 * with code splitting, minified, with source maps, on Node.js 22 and arm64, JSON logs into a log
 * group the stack owns (so retention and removal are set here, not left to Lambda's implicit group).
 * The bundle's size is printed at synthesis.
 */
export class MeshplaneFunction extends LambdaFunction {
  constructor(scope: Construct, id: string, props: MeshplaneFunctionProps) {
    const logGroup = new LogGroup(scope, `${id}Logs`, { retention: props.logRetention, removalPolicy: props.removalPolicy });
    super(scope, id, {
      code: bundledCode(props.entry),
      handler: "index.handler",
      description: props.description,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout ?? Duration.seconds(29),
      environment: { ...props.environment, NODE_OPTIONS: "--enable-source-maps" },
      logGroup,
      loggingFormat: LoggingFormat.JSON,
      tracing: Tracing.ACTIVE,
    });
  }
}

/** What every function of the stack shares: the environment all of them read, log retention, removal policy. */
export interface FunctionDefaults {
  environment: Record<string, string>;
  logRetention: RetentionDays;
  removalPolicy: RemovalPolicy;
}

/** A function of the stack: `defaults`, with its own entry, description, extra environment and timeout on top. */
export function stackFunction(
  scope: Construct,
  id: string,
  defaults: FunctionDefaults,
  own: { entry: string; description: string; environment?: Record<string, string>; timeout?: Duration },
): MeshplaneFunction {
  return new MeshplaneFunction(scope, id, {
    entry: own.entry,
    description: own.description,
    environment: { ...defaults.environment, ...own.environment },
    logRetention: defaults.logRetention,
    removalPolicy: defaults.removalPolicy,
    ...(own.timeout ? { timeout: own.timeout } : {}),
  });
}
