/**
 * When an open push channel must end (docs/push.md), judged alike by the local hub, the WebSocket
 * API's routes and the worker's notifier: at its opening token's expiry, and once its cluster is
 * deregistered or holds another agent key.
 */
import type { ClusterHead } from "../store/index";

/** Why a channel's token no longer holds (the close reason). */
export const TOKEN_EXPIRED_REASON = "the token the channel was opened with expired: open it again with a fresh one";

/** True once the token a channel was opened with has expired (docs/push.md). */
export function pushTokenExpired(opening: { expiresAt: number }, now: Date): boolean {
  return now.getTime() >= opening.expiresAt * 1000;
}

/** Why an open channel's cluster no longer has it (deregistered, another agent key), or undefined. */
export function pushClusterEnded(opening: { agentKid: string }, head: ClusterHead | undefined): string | undefined {
  if (head === undefined || head.deregistering === true) return "the cluster is deregistered";
  if (head.agentKid !== opening.agentKid) return "the cluster's agent key changed";
  return undefined;
}
