/**
 * The HTTP API, as the CLI speaks it: core's client (bearer credential, JSON in and out, problem+json
 * turned into an ApiError that names each bad field), YAML bodies, a control plane it cannot reach
 * said in one line, and 429 answered by waiting its Retry-After (bounded).
 */
import { ApiError, createHttpClient } from "@meshplane/core/http-client";
import type { Item } from "./kinds";

export { ApiError, type FieldError } from "@meshplane/core/http-client";

export interface Client {
  url: string;
  request<T = unknown>(
    method: string,
    path: string,
    options?: { body?: unknown; yaml?: string; headers?: Record<string, string> },
  ): Promise<{ status: number; body: T; headers: Headers }>;
}

/** A 429 is waited out at most this many times in a row; the next one is the command's error. */
const MAX_RATE_LIMIT_WAITS = 5;
/** The wait after a 429: its Retry-After (1 s without one), from 1 s to 30 s. */
const waitSeconds = (retryAfter: number | undefined) => Math.min(Math.max(retryAfter ?? 1, 1), 30);

/**
 * A client for the control plane at `url` with `token`. A 401's message says to log in again; a
 * request that gets no answer is an ApiError with status 0 naming the URL and why.
 */
export function createClient(url: string, token: string, options: { userAgent: string; sleep?: (ms: number) => Promise<void> }): Client {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const http = createHttpClient({
    baseUrl: url,
    token: () => token,
    headers: { "user-agent": options.userAgent },
    message: ({ status, problem }) => `${problem.detail ?? problem.title ?? `HTTP ${status}`}${status === 401 ? " (log in again: `meshplane login`)" : ""}`,
    fetch: async (input, init) => {
      try {
        return await fetch(input, init);
      } catch (error) {
        const cause = (error as { cause?: { code?: string; message?: string } }).cause;
        throw new ApiError(0, `cannot reach the control plane at ${http.baseUrl}: ${cause?.code ?? cause?.message ?? (error as Error).message}`);
      }
    },
  });
  return {
    url: http.baseUrl,
    async request<T>(method: string, path: string, o: { body?: unknown; yaml?: string; headers?: Record<string, string> } = {}) {
      const payload = o.yaml !== undefined ? { text: { contentType: "application/yaml", body: o.yaml } } : o.body !== undefined ? { body: o.body } : {};
      for (let attempt = 0; ; attempt++) {
        try {
          return await http.request<T>(method, path, { ...payload, ...(o.headers ? { headers: o.headers } : {}) });
        } catch (error) {
          if (!(error instanceof ApiError) || error.status !== 429 || attempt >= MAX_RATE_LIMIT_WAITS) throw error;
          await sleep(waitSeconds(error.retryAfterSeconds) * 1000);
        }
      }
    },
  };
}

/** Every item of a list, page after page, following `metadata.continue`. */
export async function listAll<T = Item>(client: Client, path: string, query = new URLSearchParams()): Promise<T[]> {
  const items: T[] = [];
  let next: string | undefined;
  do {
    const q = new URLSearchParams(query);
    if (next !== undefined) q.set("continue", next);
    const qs = q.toString();
    const { body } = await client.request<{ items: T[]; metadata?: { continue?: string } }>("GET", `${path}${qs ? `?${qs}` : ""}`);
    items.push(...body.items);
    next = body.metadata?.continue;
  } while (next !== undefined);
  return items;
}
