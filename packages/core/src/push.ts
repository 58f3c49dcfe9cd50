/**
 * The push channel (docs/push.md): a WebSocket from each agent to the control plane, on which the
 * control plane says that a new generation of the cluster's snapshot exists. A message carries no
 * configuration and no authority: the agent only fetches and verifies the signed snapshot as it does
 * when polling, so a forged, lost or repeated message can cause a fetch or a delay, never an apply.
 */
import { z } from "zod";

/** Where agents open the channel, on the API's own origin (ws:// or wss://). */
export const PUSH_PATH = "/v1/agent/push";

/** Longest message either side may send; anything longer closes the channel. */
export const MAX_PUSH_MESSAGE_BYTES = 1024;

/** Control plane → agent. */
export const pushMessage = z.discriminatedUnion("type", [
  /** The latest generation published for the agent's cluster (sent on connect and on every publish). */
  z.strictObject({ type: z.literal("generation"), generation: z.number().int().nonnegative() }),
  /** The answer to an agent's ping. */
  z.strictObject({ type: z.literal("pong") }),
]);
export type PushMessage = z.infer<typeof pushMessage>;

/** Agent → control plane: a keepalive (API Gateway closes a WebSocket idle for 10 minutes). */
export const agentPushMessage = z.strictObject({ type: z.literal("ping") });
export type AgentPushMessage = z.infer<typeof agentPushMessage>;

/** The first reconnect waits up to this long, spread evenly: a deploy that drops every agent at once is not a stampede. */
export const FIRST_RECONNECT_SPREAD_MS = 30_000;
const RECONNECT_BASE_MS = 1_000;
export const RECONNECT_CAP_MS = 5 * 60_000;

/**
 * How long to wait before reconnect attempt `attempt` (0 = the first after a drop): uniform in
 * [0, 30 s) first, then "full jitter" — uniform in [0, min(5 min, 1 s × 2^attempt)). 10,000 agents
 * dropped together reconnect at about 330 a second, and a control plane that stays down is retried
 * at most every 5 minutes by each.
 */
export function reconnectDelayMs(attempt: number, random: () => number = Math.random): number {
  if (attempt <= 0) return Math.floor(random() * FIRST_RECONNECT_SPREAD_MS);
  return Math.floor(random() * Math.min(RECONNECT_CAP_MS, RECONNECT_BASE_MS * 2 ** Math.min(attempt, 20)));
}

/** The channel's URL for a control plane URL (http → ws, https → wss). */
export function pushUrl(controlPlaneUrl: string): string {
  const url = new URL(PUSH_PATH, controlPlaneUrl);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  return url.toString();
}
