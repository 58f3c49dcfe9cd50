import type { AppDeps } from "./api/app";
import type { Env } from "./env";
import { SqsTranslateQueue } from "./queue/translate-queue";
import { createLogger } from "./shared/logger";
import { createDocumentClient } from "./store/client";
import { createStore } from "./store/index";

/** The composition root: every runtime (Lambda, local) builds its dependencies here from an Env. */
export function appDeps(env: Env): AppDeps {
  const doc = createDocumentClient({ region: env.region, ...(env.dynamoEndpoint ? { endpoint: env.dynamoEndpoint } : {}) });
  return {
    store: createStore({ doc, table: env.table, bootstrapTtlMs: env.bootstrapTtlMs }),
    queue: new SqsTranslateQueue({ region: env.region, queueUrl: env.queueUrl, ...(env.sqsEndpoint ? { endpoint: env.sqsEndpoint } : {}) }),
    log: createLogger({ service: "api" }),
    ...(env.publicUrl ? { publicUrl: env.publicUrl } : {}),
  };
}
