import { type AgentAuthDeps, type AgentIdentity, authenticateAgent } from "../auth/agent-jwt";
import { UnauthorizedError } from "../shared/errors";

/** Who opened a push channel, and until when the token it opened it with holds (docs/push.md). */
export interface PushOpening extends AgentIdentity {
  /** The token's `exp`, in seconds since the epoch: the channel is closed then. */
  expiresAt: number;
  /** The agent key the token was signed with: a channel outlives no change of the cluster's key. */
  agentKid: string;
}

/**
 * Authenticates the opening of a push channel — its Authorization header, as `authorization` reads
 * it, and GET, the method agents bind their channel tokens to — as any agent call is, for the local
 * hub's upgrade requests and the WebSocket API's `$connect` events alike; then spends the token's
 * `jti`: a GET-bound token costs no replay record on a snapshot read (a replay reads the same
 * snapshot), but a channel is a slot of the cluster's four held until the token expires, so one
 * captured token must not open them all. Throws UnauthorizedError with the reason.
 */
export async function authenticatePushOpening(authorization: string | undefined, deps: AgentAuthDeps): Promise<PushOpening> {
  const { tenantId, cluster, head, jti, expiresAt } = await authenticateAgent({ authorization, method: "GET" }, deps);
  if (!(await deps.store.snapshots.useJti(tenantId, cluster, jti, expiresAt))) throw new UnauthorizedError("agent credential rejected: jti already used");
  return { tenantId, cluster, head, expiresAt, agentKid: head.agentKid as string };
}
