import { KMSClient } from "@aws-sdk/client-kms";
import type { AppDeps } from "./api/app";
import { DEFAULT_LIMITS, type RateClass, type RateLimit } from "./api/rate-limit";
import type { Env } from "./env";
import type { AuthorityDeps } from "./pki/authority";
import { LocalKeyVault } from "./pki/key-vault";
import { KmsKeyVault } from "./pki/kms-vault";
import { SqsTranslateQueue } from "./queue/translate-queue";
import type { PushNotifier } from "./push/hub";
import { createLogger } from "./shared/logger";
import { KmsSigner } from "./signer/kms";
import { LocalKeySigner } from "./signer/local-key";
import type { Signer } from "./signer/signer";
import { createDocumentClient } from "./store/client";
import { type Store, createStore } from "./store/index";
import type { WorkerDeps } from "./worker/translate-tenant";

/** Configured requests per window over the default limits of each class (window and lease kept). */
function limitsFrom(configured: Record<string, number>): Partial<Record<RateClass, RateLimit>> {
  return Object.fromEntries(
    Object.entries(configured).map(([cls, limit]) => {
      const base = DEFAULT_LIMITS[cls as RateClass];
      return [cls, { ...base, limit, lease: Math.min(base.lease, limit) }];
    }),
  );
}

/** The worker's notifier on AWS, loaded on first use. */
function awsPush(endpoint: string, region: string, store: Store): PushNotifier {
  let connections: Promise<PushNotifier> | undefined;
  return {
    async published(tenantId, cluster, generation) {
      connections ??= import("./push/aws-notifier").then((m) => new m.ApiGatewayConnections({ endpoint, region, connections: store.pushConnections, log: createLogger({ service: "worker" }) }));
      await (await connections).published(tenantId, cluster, generation);
    },
  };
}

/** The composition root: every runtime (Lambda, local) builds its dependencies here from an Env. */
export function createRuntime(env: Env): { store: Store; signer: Signer; app: AppDeps; worker: WorkerDeps } {
  const doc = createDocumentClient({ region: env.region, ...(env.dynamoEndpoint ? { endpoint: env.dynamoEndpoint } : {}) });
  const store = createStore({ doc, table: env.table, bootstrapTtlMs: env.bootstrapTtlMs });
  const signer: Signer = env.kmsKeyIds
    ? new KmsSigner({ kms: new KMSClient({ region: env.region }), keyIds: env.kmsKeyIds })
    : LocalKeySigner.open(env.signingKeyFile as string);
  const authority: AuthorityDeps = {
    vault: env.caKmsKeyId ? new KmsKeyVault({ kms: new KMSClient({ region: env.region }), keyId: env.caKmsKeyId }) : LocalKeyVault.open(env.caKekFile as string),
    crypto: globalThis.crypto,
  };
  const app: AppDeps = {
    store,
    signer,
    authority,
    queue: new SqsTranslateQueue({ region: env.region, queueUrl: env.queueUrl, ...(env.sqsEndpoint ? { endpoint: env.sqsEndpoint } : {}) }),
    log: createLogger({ service: "api" }),
    ...(env.publicUrl ? { publicUrl: env.publicUrl } : {}),
    ...(env.rateLimits ? { limits: limitsFrom(env.rateLimits) } : {}),
    ...(env.pushUrl ? { pushUrl: env.pushUrl } : {}),
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
  return { store, signer, app, worker };
}
