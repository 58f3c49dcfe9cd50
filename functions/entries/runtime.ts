import type { AppDeps } from "../http/app";
import { DEFAULT_LIMITS, type RateClass, type RateLimit } from "../http/middleware/rate-limiter";
import type { Env } from "./env";
import type { CsrSigner } from "../trust/ca-signer/contract";
import type { CaSignerDeps } from "../trust/ca-signer/signer";
import type { AuthorityDeps } from "../trust/authority";
import { type KeyVault, LocalKeyVault } from "../trust/key-vault";
import { SqsTranslateQueue } from "../queue/translate-queue";
import type { PushNotifier } from "../push/hub";
import { createLogger } from "../shared/logger";
import { LocalKeySigner } from "../signer/local-key";
import type { Signer } from "../signer/signer";
import { createDocumentClient } from "../store/client";
import { type Store, createStore } from "../store/index";
import type { WorkerDeps } from "../translation/job";
import { type MetricsConfig, metricsApi } from "../metrics/index";

/** The metrics store's configuration from the Env, or undefined when it keeps none. */
export function metricsConfig(env: Env): MetricsConfig | undefined {
  const m = env.metrics;
  if (m === undefined) return undefined;
  return {
    region: env.region,
    bucket: m.bucket,
    queueUrl: m.queueUrl,
    shards: m.shards,
    ...(m.s3Endpoint ? { endpoint: m.s3Endpoint } : {}),
    ...(env.sqsEndpoint ? { sqsEndpoint: env.sqsEndpoint } : {}),
  };
}

/**
 * Configured requests per minute over the default limits of each class (every default's window is a
 * minute); its burst and lease are kept, the bucket holding at most the new budget at once.
 */
function limitsFrom(configured: Record<string, number>): Partial<Record<RateClass, RateLimit>> {
  return Object.fromEntries(
    Object.entries(configured).map(([cls, limit]) => {
      const base = DEFAULT_LIMITS[cls as RateClass];
      return [cls, { ...base, limit, lease: Math.min(base.lease, limit) }];
    }),
  );
}

/** `load()` on the first call, and the same promise on every later one. */
function onFirstUse<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => (loaded ??= load());
}

/** The worker's notifier on AWS, loaded on first use. */
function awsPush(endpoint: string, region: string, store: Store): PushNotifier {
  const connections = onFirstUse(() =>
    import("../push/aws-notifier").then(
      (m) => new m.ApiGatewayConnections({ endpoint, region, connections: store.pushConnections, log: createLogger({ service: "worker" }) }),
    ),
  );
  return {
    async published(tenantId, cluster, generation) {
      await (await connections()).published(tenantId, cluster, generation);
    },
  };
}

// On AWS the snapshot signer and the CA key vault are KMS's. Each is loaded with the KMS client under
// it on first use: the API needs the signer only for the JWKS, and the vault is used only by the
// worker (sealing) and the CA signer (opening). (Locally, keys in files stand in for both.)

function kmsSigner(region: string, keyIds: string[]): Signer {
  const signer = onFirstUse(async () => {
    const [{ KMSClient }, { KmsSigner }] = await Promise.all([import("@aws-sdk/client-kms"), import("../signer/kms")]);
    return new KmsSigner({ kms: new KMSClient({ region }), keyIds });
  });
  return { sign: async (payload, typ) => (await signer()).sign(payload, typ), jwks: async () => (await signer()).jwks() };
}

/**
 * The API's side of the CA signer: on AWS its function, with the Lambda client under it loaded by the
 * first CSR. Without one, the API has no signer here: the local launcher (and the tests) hand it the
 * same signer in-process (functions/trust/ca-signer/in-process.ts), so the API's bundle never carries the
 * code that opens a CA key (functions/boundaries.test.ts).
 */
function lambdaCsrSigner(region: string, functionName: string): CsrSigner {
  const signer = onFirstUse(async () => {
    const [{ LambdaClient }, { LambdaCsrSigner }] = await Promise.all([import("@aws-sdk/client-lambda"), import("../trust/ca-signer/invoke")]);
    return new LambdaCsrSigner({ lambda: new LambdaClient({ region }), functionName });
  });
  return { sign: async (request) => (await signer()).sign(request) };
}

const NO_CSR_SIGNER: CsrSigner = {
  sign: async () => {
    throw new Error("MESHPLANE_CA_SIGNER_FUNCTION is not set: this API has no CA signer to hand CSRs to");
  },
};

function kmsVault(region: string, keyId: string): KeyVault {
  const vault = onFirstUse(async () => {
    const [{ KMSClient }, { KmsKeyVault }] = await Promise.all([import("@aws-sdk/client-kms"), import("../trust/kms-vault")]);
    return new KmsKeyVault({ kms: new KMSClient({ region }), keyId });
  });
  return {
    seal: async (plaintext, context) => (await vault()).seal(plaintext, context),
    open: async (sealed, context) => (await vault()).open(sealed, context),
  };
}

/** The composition root: every runtime (Lambda, local) builds its dependencies here from an Env. */
export function createRuntime(env: Env): { store: Store; signer: Signer; app: AppDeps; worker: WorkerDeps; caSigner: CaSignerDeps } {
  const doc = createDocumentClient({ region: env.region, ...(env.dynamoEndpoint ? { endpoint: env.dynamoEndpoint } : {}) });
  const store = createStore({ doc, table: env.table, bootstrapTtlMs: env.bootstrapTtlMs });
  const metrics = metricsConfig(env);
  const signer: Signer = env.kmsKeyIds ? kmsSigner(env.region, env.kmsKeyIds) : LocalKeySigner.open(env.signingKeyFile as string);
  const authority: AuthorityDeps = {
    vault: env.caKmsKeyId ? kmsVault(env.region, env.caKmsKeyId) : LocalKeyVault.open(env.caKekFile as string),
    crypto: globalThis.crypto,
  };
  // Only the CA signer opens CA keys: on AWS a function of its own that the API invokes, locally the
  // same code in-process over `caSigner`. The worker seals new keys; the API holds no vault at all.
  const caSigner: CaSignerDeps = {
    store,
    authority,
    trustedKeys: async () => (await signer.jwks()).keys,
    log: createLogger({ service: "ca-signer" }),
    now: () => new Date(),
  };
  const app: AppDeps = {
    store,
    signer,
    authority: { crypto: authority.crypto },
    csrSigner: env.caSignerFunction ? lambdaCsrSigner(env.region, env.caSignerFunction) : NO_CSR_SIGNER,
    queue: new SqsTranslateQueue({ region: env.region, queueUrl: env.queueUrl, ...(env.sqsEndpoint ? { endpoint: env.sqsEndpoint } : {}) }),
    log: createLogger({ service: "api" }),
    ...(env.publicUrl ? { publicUrl: env.publicUrl } : {}),
    ...(env.rateLimits ? { limits: limitsFrom(env.rateLimits) } : {}),
    ...(env.pushUrl ? { pushUrl: env.pushUrl } : {}),
    ...(metrics ? { metrics: metricsApi(metrics) } : {}),
  };
  const worker: WorkerDeps = {
    store,
    signer,
    issuer: env.publicUrl ?? "meshplane",
    validitySeconds: env.snapshotValiditySeconds,
    refreshBeforeSeconds: env.snapshotRefreshBeforeSeconds,
    log: createLogger({ service: "worker" }),
    now: () => new Date(),
    authority,
    // On AWS the worker tells agents' push connections itself (the management API client loads on the
    // first publish, so the API function never loads it); locally the launcher hands it the hub.
    ...(env.pushEndpoint ? { push: awsPush(env.pushEndpoint, env.region, store) } : {}),
  };
  return { store, signer, app, worker, caSigner };
}
