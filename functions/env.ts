/**
 * The control plane's configuration, read from the environment in exactly this one place.
 * Lambda sets these from the stack; the local launcher sets them for its embedded services.
 */
export interface Env {
  region: string;
  table: string;
  queueUrl: string;
  dynamoEndpoint?: string;
  sqsEndpoint?: string;
  publicUrl?: string;
  bootstrapTtlMs: number;
}

function required(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name];
  if (!value) throw new Error(`environment variable ${name} is required`);
  return value;
}

export function readEnv(env: NodeJS.ProcessEnv = process.env): Env {
  const ttlHours = Number(env.MESHPLANE_BOOTSTRAP_TTL_HOURS ?? "24");
  if (!Number.isFinite(ttlHours) || ttlHours <= 0) throw new Error("MESHPLANE_BOOTSTRAP_TTL_HOURS must be a positive number");
  return {
    region: env.AWS_REGION ?? "us-east-1",
    table: required(env, "MESHPLANE_TABLE"),
    queueUrl: required(env, "MESHPLANE_QUEUE_URL"),
    ...(env.MESHPLANE_DYNAMODB_ENDPOINT ? { dynamoEndpoint: env.MESHPLANE_DYNAMODB_ENDPOINT } : {}),
    ...(env.MESHPLANE_SQS_ENDPOINT ? { sqsEndpoint: env.MESHPLANE_SQS_ENDPOINT } : {}),
    ...(env.MESHPLANE_PUBLIC_URL ? { publicUrl: env.MESHPLANE_PUBLIC_URL } : {}),
    bootstrapTtlMs: ttlHours * 3_600_000,
  };
}
