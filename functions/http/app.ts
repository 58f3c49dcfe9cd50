import { randomUUID } from "node:crypto";
import { Hono, type MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { TranslateQueue } from "../queue/translate-queue";
import type { Logger } from "../shared/logger";
import type { Store } from "../store/index";
import { authorize } from "./middleware/auth";
import { MAX_IN_FLIGHT_PER_CREDENTIAL, type Sharing, fairTurns, inFlightLimit } from "./middleware/concurrency";
import { rateLimit } from "./middleware/rate-limit";
import { DEFAULT_LIMITS, type RateClass, type RateLimit, RateLimiter } from "./middleware/rate-limiter";
import { refuseExhausted } from "./middleware/refusals";
import type { AppEnv } from "./context";
import { onError, problem } from "./problem";
import { type Route, honoPath, route } from "./route";
import { agentRoutes } from "./routes/agent";
import { agentMetricsRoutes } from "./routes/agent-metrics";
import { agentResourceRoutes } from "./routes/agent-resources";
import { metricsRoutes } from "./routes/metrics";
import { applyRoutes } from "./routes/apply";
import { clusterRoutes } from "./routes/clusters";
import { discoveredRoutes } from "./routes/discovered";
import { resourceRoutes } from "./routes/resources";
import { planRoutes } from "./routes/plan";
import { snapshotRoutes } from "./routes/snapshots";
import type { Signer } from "../signer/signer";
import { tenantRoutes } from "./routes/tenants";
import { tokenRoutes } from "./routes/tokens";
import { certificateRoutes } from "./routes/certificates";
import type { AuthorityDeps } from "../trust/authority";
import type { CsrSigner } from "../trust/ca-signer/contract";
import type { MetricsApi } from "../metrics/index";
import { metricsHealthOf } from "../clusters/views";

export interface AppDeps {
  store: Store;
  /** Publishes the snapshot signing keys (JWKS); the API itself never signs. */
  signer: Signer;
  queue: TranslateQueue;
  log: Logger;
  /** Validates uploaded CA chains; the API never opens a CA key. */
  authority: Pick<AuthorityDeps, "crypto">;
  /** Signs mesh intermediates: the CA signer (functions/trust/ca-signer), the only holder of CA keys. */
  csrSigner: CsrSigner;
  now?: () => Date;
  /** URL agents use to reach this API (for the helm line); defaults to the request's origin. */
  publicUrl?: string;
  /** The push channel's URL when it is not on this API's origin (AWS: the WebSocket API), for the helm line. */
  pushUrl?: string;
  version?: string;
  /** Rate limits per class, over DEFAULT_LIMITS (tests lower them; operators may tune them). */
  limits?: Partial<Record<RateClass, RateLimit>>;
  /** How one process serving every tenant shares itself out (the local control plane); none on Lambda. */
  sharing?: Sharing;
  /**
   * The metrics store (docs/observability.md#where-it-is-kept): the queue agents' reports go to and the
   * reader of the roll-ups. Without it the control plane keeps no metrics: reports are answered 503 and
   * every read has no traffic.
   */
  metrics?: MetricsApi;
}

export const MAX_BODY_BYTES = 1024 * 1024;

function limitBody(maxSize: number) {
  return bodyLimit({
    maxSize,
    onError: (c) => {
      // The unread rest of the body is still on the socket: ask the client not to reuse it.
      c.header("connection", "close");
      return problem(c as never, 413, `the body is larger than ${maxSize} bytes`);
    },
  });
}

/**
 * The methods routes answer on the path a request names, for 405 (with `Allow`) instead of 404 when
 * the path exists but the method does not. Path parameters match one segment, as in the router.
 */
function methodsByPath(routes: readonly { method: string; path: string }[]): (path: string) => string[] {
  const patterns = routes.map((r) => ({
    method: r.method.toUpperCase(),
    regex: new RegExp(`^${r.path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+")}$`),
  }));
  return (path) => [...new Set(patterns.filter((p) => p.regex.test(path)).map((p) => p.method))].sort();
}

/** Every route of the API, in the order they are documented. */
export function allRoutes(
  deps: Required<Pick<AppDeps, "store" | "queue" | "now" | "signer" | "authority" | "csrSigner">> & Pick<AppDeps, "publicUrl" | "pushUrl" | "metrics">,
): Route[] {
  const { metrics, store, now } = deps;
  return [
    ...tenantRoutes(deps),
    ...tokenRoutes(deps),
    ...clusterRoutes(deps),
    ...resourceRoutes(deps),
    ...applyRoutes(deps),
    ...discoveredRoutes(deps),
    ...agentRoutes(deps),
    ...agentResourceRoutes(deps),
    ...agentMetricsRoutes(metrics ? { queue: metrics.queue, health: store.metricsHealth, now } : undefined),
    ...metricsRoutes({ store, now, ...(metrics ? { reader: metrics } : {}), health: (tenantId) => metricsHealthOf(deps, tenantId) }),
    ...snapshotRoutes(deps),
    ...planRoutes(deps),
    ...certificateRoutes(deps),
  ];
}

/** The hono app: the same object serves Lambda (handler.ts) and the local server (local/main.ts). */
export function createApp(deps: AppDeps): Hono<AppEnv> {
  const now = deps.now ?? (() => new Date());
  const apiUrl = (c: { req: { url: string } }) => deps.publicUrl ?? new URL(c.req.url).origin;
  const routes = allRoutes({
    store: deps.store,
    queue: deps.queue,
    signer: deps.signer,
    authority: deps.authority,
    csrSigner: deps.csrSigner,
    now,
    ...(deps.publicUrl ? { publicUrl: deps.publicUrl } : {}),
    ...(deps.pushUrl ? { pushUrl: deps.pushUrl } : {}),
    ...(deps.metrics ? { metrics: deps.metrics } : {}),
  });
  const health = route({
    method: "get",
    path: "/healthz",
    tag: "meta",
    access: "public",
    summary: "Liveness",
    responses: { 200: { description: "alive" } },
    handler: async (c) => c.json({ ok: true }),
  });
  // Generated on the first request for it, not at start: converting every route's schemas to JSON
  // Schema takes tens of milliseconds that no other request needs.
  let spec: Promise<Record<string, unknown>> | undefined;
  const openApi = () => (spec ??= import("./openapi").then((m) => m.openApiDocument([...routes, health], deps.version ?? "0.1.0")));
  const limiter = new RateLimiter(deps.store.rateLimits, { ...DEFAULT_LIMITS, ...deps.limits }, () => now().getTime());
  const lanes = inFlightLimit(MAX_IN_FLIGHT_PER_CREDENTIAL, deps.sharing?.holdRefusalsMs ?? 0);
  const turns: MiddlewareHandler<AppEnv> = deps.sharing ? fairTurns(deps.sharing.maxConcurrent, deps.sharing.perCredential) : (_c, next) => next();
  const app = new Hono<AppEnv>();
  app.use(async (c, next) => {
    const requestId = randomUUID();
    c.set("requestId", requestId);
    c.set("log", deps.log.child({ requestId }));
    c.header("x-request-id", requestId);
    await next();
    // Every answer: never sniffed into another type, never kept by a cache or proxy (tokens, bootstrap
    // tokens and tenant configuration travel in bodies; no answer is meant to be stored).
    c.res.headers.set("x-content-type-options", "nosniff");
    if (!c.res.headers.has("cache-control")) c.res.headers.set("cache-control", "no-store");
  });
  app.get("/openapi.json", async (c) => c.json(await openApi()));
  for (const r of [...routes, health]) {
    app.on(
      r.method.toUpperCase(),
      honoPath(r.path),
      limitBody(r.maxBodyBytes ?? MAX_BODY_BYTES),
      lanes,
      refuseExhausted(limiter, r),
      turns,
      authorize(deps.store, r.access, now, apiUrl),
      rateLimit(limiter, r),
      (c) => r.handle(c),
    );
  }
  const allowed = methodsByPath([...routes, health, { method: "get", path: "/openapi.json" }]);
  app.notFound((c) => {
    const methods = allowed(c.req.path);
    if (methods.length === 0) return problem(c, 404, `no route for ${c.req.method} ${c.req.path}`);
    c.header("allow", methods.join(", "));
    return problem(c, 405, `${c.req.method} is not allowed on ${c.req.path}; allowed: ${methods.join(", ")}`);
  });
  app.onError(onError);
  return app;
}
