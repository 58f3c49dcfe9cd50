import type { Context } from "hono";
import type { AppEnv } from "../api/context";

/**
 * What authenticateAgent reads of a request that opens the push channel — its headers (looked up
 * case-insensitively by `header`) and GET, the method agents bind their channel tokens to — for the
 * local hub's upgrade requests and the WebSocket API's `$connect` events alike.
 */
export function pushOpeningContext(header: (lowerCaseName: string) => string | undefined): Context<AppEnv> {
  return { req: { method: "GET", header: (name: string) => header(name.toLowerCase()) } } as unknown as Context<AppEnv>;
}
