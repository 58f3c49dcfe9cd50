/**
 * The API Gateway WebSocket API's routes for the push channel (docs/push.md), as one handler:
 * `$connect` authenticates the agent as every agent call is (a GET-bound agent JWT in the
 * Authorization header), spends the token and records the connection with the token's expiry;
 * `$disconnect` forgets it; `$default` answers a ping with a pong — unless the connection's token has
 * expired or its cluster was deregistered or got a new agent key, when it closes the connection, as
 * it does on anything but a ping. The protocol is the local hub's (hub.ts); only how connections are
 * held differs: no timer runs here, so a connection ends at the first event after its end — its next
 * ping, or the worker's next post to it (aws-notifier.ts).
 */
import { MAX_PUSH_MESSAGE_BYTES, agentPushMessage } from "@meshplane/core/base";
import { z } from "zod";
import { TOKEN_EXPIRED_REASON, pushClusterEnded, pushTokenExpired } from "./channel-end";
import { type PushOpening, authenticatePushOpening } from "./opening";
import { TooManyRequestsError } from "../shared/errors";
import type { Logger } from "../shared/logger";
import type { Store } from "../store/index";

/** What API Gateway hands the function, parsed at the boundary (anything else is a 400). */
const websocketEvent = z.object({
  requestContext: z.object({ routeKey: z.string(), connectionId: z.string().min(1).max(128) }),
  headers: z.record(z.string(), z.string()).optional(),
  body: z.string().optional(),
  isBase64Encoded: z.boolean().optional(),
});

export interface WebSocketDeps {
  store: Store;
  now: () => Date;
  log: Logger;
  /** The HTTP API's base URL: the audience of agent JWTs. */
  publicUrl: string;
  /** Connections one cluster may hold (an agent's replicas). */
  maxPerCluster?: number;
  /** Closes a connection that broke the protocol (API Gateway's management API). */
  close: (connectionId: string) => Promise<void>;
}

export interface WebSocketResult {
  statusCode: number;
  body?: string;
}

/** Handles one WebSocket event. Never throws for client input: a refusal is a status code. */
export async function handleWebSocketEvent(deps: WebSocketDeps, raw: unknown): Promise<WebSocketResult> {
  const parsed = websocketEvent.safeParse(raw);
  if (!parsed.success) return { statusCode: 400, body: "not an API Gateway WebSocket event" };
  const event = parsed.data;
  const { routeKey, connectionId } = event.requestContext;
  if (routeKey === "$connect") return connect(deps, connectionId, event.headers ?? {});
  if (routeKey === "$disconnect") {
    const owner = await deps.store.pushConnections.owner(connectionId);
    if (owner) await deps.store.pushConnections.remove(owner.tenantId, owner.cluster, connectionId);
    return { statusCode: 200 };
  }
  return message(deps, connectionId, event.isBase64Encoded ? undefined : event.body);
}

async function connect(deps: WebSocketDeps, connectionId: string, headers: Record<string, string>): Promise<WebSocketResult> {
  let identity: PushOpening;
  try {
    const authorization = Object.entries(headers).findLast(([name]) => name.toLowerCase() === "authorization")?.[1];
    identity = await authenticatePushOpening(authorization, { store: deps.store, now: deps.now, apiUrl: deps.publicUrl });
  } catch (error) {
    return { statusCode: 401, body: (error as Error).message };
  }
  try {
    await deps.store.pushConnections.add(identity.tenantId, identity.cluster, connectionId, deps.now(), deps.maxPerCluster ?? 4, {
      expiresAt: identity.expiresAt,
      agentKid: identity.agentKid,
    });
  } catch (error) {
    if (error instanceof TooManyRequestsError) return { statusCode: 429, body: error.message };
    throw error;
  }
  deps.log.info("push channel opened", { tenant: identity.tenantId, cluster: identity.cluster });
  return { statusCode: 200 };
}

/** Agents may only ping; anything else closes the channel (the agent falls back to polling). */
async function message(deps: WebSocketDeps, connectionId: string, body: string | undefined): Promise<WebSocketResult> {
  let ok = false;
  if (body !== undefined && Buffer.byteLength(body) <= MAX_PUSH_MESSAGE_BYTES) {
    try {
      ok = agentPushMessage.safeParse(JSON.parse(body)).success;
    } catch {
      ok = false;
    }
  }
  if (!ok) {
    await deps.close(connectionId);
    return { statusCode: 400, body: 'the only message an agent may send is {"type":"ping"}' };
  }
  const ended = await channelEnded(deps, connectionId);
  if (ended !== undefined) {
    await deps.close(connectionId);
    return { statusCode: 401, body: ended };
  }
  return { statusCode: 200, body: JSON.stringify({ type: "pong" }) };
}

/**
 * Why a connection may no longer be held, or undefined: it is unknown (forgotten, or recorded before
 * the expiry was), its token expired, or its cluster is deregistered or has another agent key. An
 * ended connection is forgotten here; the caller closes it.
 */
async function channelEnded(deps: WebSocketDeps, connectionId: string): Promise<string | undefined> {
  const owner = await deps.store.pushConnections.owner(connectionId);
  if (owner === undefined) return "the connection is not known: open it again";
  let why: string | undefined;
  if (owner.expiresAt === undefined || pushTokenExpired({ expiresAt: owner.expiresAt }, deps.now())) why = TOKEN_EXPIRED_REASON;
  else why = pushClusterEnded({ agentKid: owner.agentKid ?? "" }, await deps.store.snapshots.head(owner.tenantId, owner.cluster));
  if (why !== undefined) await deps.store.pushConnections.remove(owner.tenantId, owner.cluster, connectionId);
  return why;
}
