import type { Context } from "hono";
import { decodeJwt } from "jose";
import { type AgentIdentity, authenticateAgent } from "../auth/agent-jwt";
import type { AppEnv } from "../http/context";
import { UnauthorizedError } from "../shared/errors";
import type { Store } from "../store/index";

/**
 * What authenticateAgent reads of a request that opens the push channel — its headers (looked up
 * case-insensitively by `header`) and GET, the method agents bind their channel tokens to — for the
 * local hub's upgrade requests and the WebSocket API's `$connect` events alike.
 */
export function pushOpeningContext(header: (lowerCaseName: string) => string | undefined): Context<AppEnv> {
  return { req: { method: "GET", header: (name: string) => header(name.toLowerCase()) } } as unknown as Context<AppEnv>;
}

/** Who opened a push channel, and until when the token it opened it with holds (docs/push.md). */
export interface PushOpening extends AgentIdentity {
  /** The token's `exp`, in seconds since the epoch: the channel is closed then. */
  expiresAt: number;
  /** The agent key the token was signed with: a channel outlives no change of the cluster's key. */
  agentKid: string;
}

/**
 * Authenticates the opening of a push channel as any agent call is, then spends the token's `jti`:
 * a GET-bound token costs no replay record on a snapshot read (a replay reads the same snapshot), but
 * a channel is a slot of the cluster's four held until the token expires, so one captured token must
 * not open them all. Throws UnauthorizedError with the reason.
 */
export async function authenticatePushOpening(header: (lowerCaseName: string) => string | undefined, deps: { store: Store; now: () => Date; apiUrl: string }): Promise<PushOpening> {
  const identity = await authenticateAgent(pushOpeningContext(header), deps);
  // Verified above: what it says can be read as it is.
  const claims = decodeJwt((header("authorization") ?? "").replace(/^bearer /i, ""));
  const jti = claims.jti as string;
  const exp = claims.exp as number;
  if (!(await deps.store.snapshots.useJti(identity.tenantId, identity.cluster, jti, exp))) throw new UnauthorizedError("agent credential rejected: jti already used");
  return { ...identity, expiresAt: exp, agentKid: identity.head.agentKid as string };
}
