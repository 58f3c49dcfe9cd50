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
  /** Exactly one of the two: KMS key ids (active first) or a local key file. */
  kmsKeyIds?: string[];
  signingKeyFile?: string;
  snapshotValiditySeconds: number;
  snapshotRefreshBeforeSeconds: number;
  /** Exactly one of the two: the KMS key that seals CA private keys, or a local key-encryption key file. */
  caKmsKeyId?: string;
  caKekFile?: string;
  /**
   * On AWS, the CA signer's function, which the API invokes for every CSR (it holds no CA key
   * itself; the stack sets it on the API's function). The local launcher runs the signer in-process instead.
   */
  caSignerFunction?: string;
  /** Requests per minute per class (`read=6000,plan=120,…`), over the defaults (docs/api.md, "Rate limits"). */
  rateLimits?: Record<string, number>;
  /**
   * On AWS, the push channel's WebSocket URL agents open (`wss://…`, put in the helm values), and its
   * management endpoint (`https://…`) the worker posts new generations to. Locally the channel is on
   * the API's own port and neither is set.
   */
  pushUrl?: string;
  pushEndpoint?: string;
  /**
   * The metrics store (docs/aws.md#metrics): its bucket, the standard queue reports go to, the shards
   * tenants are spread over, and for the local emulator the S3 endpoint. Absent: no metrics are kept.
   */
  metrics?: { bucket: string; queueUrl: string; shards: number; s3Endpoint?: string };
}

const RATE_CLASSES = ["read", "write", "plan", "agent", "metrics", "authoring", "operator", "refused"];

/**
 * `MESHPLANE_RATE_LIMITS`: `class=requests` pairs, comma-separated, each class at most once and each a
 * positive integer in decimal: requests per minute (docs/api.md, "Rate limits").
 */
function rateLimits(value: string | undefined): Record<string, number> | undefined {
  if (!value) return undefined;
  const out: Record<string, number> = {};
  for (const pair of value
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [, cls = "", n = ""] = /^([a-z]+)=([1-9][0-9]*)$/.exec(pair) ?? [];
    if (!RATE_CLASSES.includes(cls) || !Number.isSafeInteger(Number(n))) {
      throw new Error(`MESHPLANE_RATE_LIMITS: "${pair}" must be <${RATE_CLASSES.join("|")}>=<positive integer>`);
    }
    if (out[cls] !== undefined) throw new Error(`MESHPLANE_RATE_LIMITS: "${pair}": ${cls} is given twice`);
    out[cls] = Number(n);
  }
  return out;
}

function required(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name];
  if (!value) throw new Error(`environment variable ${name} is required`);
  return value;
}

function url(env: NodeJS.ProcessEnv, name: string, protocols: string[]): string {
  const value = env[name] as string;
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new Error(`${name} must be a URL`);
  }
  if (!protocols.includes(parsed.protocol)) throw new Error(`${name} must be a ${protocols.join(" or ")} URL`);
  return value.replace(/\/$/, "");
}

function positive(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = Number(env[name] ?? String(fallback));
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`);
  return value;
}

/** MESHPLANE_METRICS_BUCKET and MESHPLANE_METRICS_QUEUE_URL together, or neither. */
function metrics(env: NodeJS.ProcessEnv): Env["metrics"] {
  const bucket = env.MESHPLANE_METRICS_BUCKET;
  const queueUrl = env.MESHPLANE_METRICS_QUEUE_URL;
  if (!bucket && !queueUrl) return undefined;
  if (!bucket || !queueUrl) throw new Error("set MESHPLANE_METRICS_BUCKET and MESHPLANE_METRICS_QUEUE_URL together");
  const shards = positive(env, "MESHPLANE_METRICS_SHARDS", 2);
  if (!Number.isInteger(shards)) throw new Error("MESHPLANE_METRICS_SHARDS must be a whole number");
  return { bucket, queueUrl, shards, ...(env.MESHPLANE_S3_ENDPOINT ? { s3Endpoint: env.MESHPLANE_S3_ENDPOINT } : {}) };
}

export function readEnv(env: NodeJS.ProcessEnv = process.env): Env {
  const validityHours = positive(env, "MESHPLANE_SNAPSHOT_VALIDITY_HOURS", 168);
  const refreshHours = positive(env, "MESHPLANE_SNAPSHOT_REFRESH_HOURS", Math.min(48, validityHours / 2));
  if (refreshHours >= validityHours) throw new Error("MESHPLANE_SNAPSHOT_REFRESH_HOURS must be less than MESHPLANE_SNAPSHOT_VALIDITY_HOURS");
  const kmsKeyIds = env.MESHPLANE_KMS_KEY_IDS?.split(",")
    .map((k) => k.trim())
    .filter(Boolean);
  if (kmsKeyIds?.length && env.MESHPLANE_SIGNING_KEY_FILE) throw new Error("set MESHPLANE_KMS_KEY_IDS or MESHPLANE_SIGNING_KEY_FILE, not both");
  if (!kmsKeyIds?.length && !env.MESHPLANE_SIGNING_KEY_FILE) throw new Error("MESHPLANE_KMS_KEY_IDS or MESHPLANE_SIGNING_KEY_FILE is required");
  if (env.MESHPLANE_CA_KMS_KEY_ID && env.MESHPLANE_CA_KEK_FILE) throw new Error("set MESHPLANE_CA_KMS_KEY_ID or MESHPLANE_CA_KEK_FILE, not both");
  if (!env.MESHPLANE_CA_KMS_KEY_ID && !env.MESHPLANE_CA_KEK_FILE) throw new Error("MESHPLANE_CA_KMS_KEY_ID or MESHPLANE_CA_KEK_FILE is required");
  return {
    region: env.AWS_REGION ?? "us-east-1",
    table: required(env, "MESHPLANE_TABLE"),
    queueUrl: required(env, "MESHPLANE_QUEUE_URL"),
    ...(env.MESHPLANE_DYNAMODB_ENDPOINT ? { dynamoEndpoint: env.MESHPLANE_DYNAMODB_ENDPOINT } : {}),
    ...(env.MESHPLANE_SQS_ENDPOINT ? { sqsEndpoint: env.MESHPLANE_SQS_ENDPOINT } : {}),
    ...(env.MESHPLANE_PUBLIC_URL ? { publicUrl: env.MESHPLANE_PUBLIC_URL } : {}),
    bootstrapTtlMs: positive(env, "MESHPLANE_BOOTSTRAP_TTL_HOURS", 24) * 3_600_000,
    ...(kmsKeyIds?.length ? { kmsKeyIds } : { signingKeyFile: env.MESHPLANE_SIGNING_KEY_FILE as string }),
    snapshotValiditySeconds: validityHours * 3600,
    snapshotRefreshBeforeSeconds: refreshHours * 3600,
    ...(env.MESHPLANE_CA_KMS_KEY_ID ? { caKmsKeyId: env.MESHPLANE_CA_KMS_KEY_ID } : { caKekFile: env.MESHPLANE_CA_KEK_FILE as string }),
    ...(env.MESHPLANE_CA_SIGNER_FUNCTION ? { caSignerFunction: env.MESHPLANE_CA_SIGNER_FUNCTION } : {}),
    ...(env.MESHPLANE_RATE_LIMITS ? { rateLimits: rateLimits(env.MESHPLANE_RATE_LIMITS) } : {}),
    ...(env.MESHPLANE_PUSH_URL ? { pushUrl: url(env, "MESHPLANE_PUSH_URL", ["wss:", "ws:"]) } : {}),
    ...(env.MESHPLANE_PUSH_ENDPOINT ? { pushEndpoint: url(env, "MESHPLANE_PUSH_ENDPOINT", ["https:", "http:"]) } : {}),
    ...(metrics(env) ? { metrics: metrics(env) } : {}),
  };
}
