/**
 * The console's one way to the control plane: core's HTTP client on the console's own origin, with
 * the signed-in credential in the Authorization header (never in a URL) and problem+json errors
 * turned into ApiError, and lists read a page at a time with the API's `continue` token.
 */
import { createHttpClient } from "@meshplane/core/http-client";
import { session } from "./session";

export { ApiError } from "@meshplane/core/http-client";

export interface Answer<T> {
  body: T;
  etag: string | null;
}

const http = createHttpClient({
  token: () => session.token(),
  message: ({ status, statusText, problem }) => problem.detail ?? problem.title ?? `${status} ${statusText}`,
  // The API refused the credential (revoked or expired): the console signs out and says why.
  onUnauthorized: () => session.expired(),
});

/** One request on the console's own origin; an answer of 400 or more is an ApiError. */
export async function request<T>(
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<Answer<T>> {
  const { body, headers } = await http.request<T>(method, path, options);
  return { body, etag: headers.get("etag") };
}

export interface Page<T> {
  items: T[];
  metadata: { continue?: string };
}

/**
 * Reads a list a page at a time, handing each page over as it arrives (a long list shows its first
 * rows at once); resolves with every item. Stops when `signal` aborts.
 */
export async function listAll<T>(
  path: string,
  options: { pageSize?: number; onPage?: (items: T[], done: boolean) => void; signal?: AbortSignal } = {},
): Promise<T[]> {
  const all: T[] = [];
  let next: string | undefined;
  do {
    const query = new URLSearchParams({ limit: String(options.pageSize ?? 500), ...(next ? { continue: next } : {}) });
    const sep = path.includes("?") ? "&" : "?";
    const { body } = await request<Page<T>>("GET", `${path}${sep}${query}`, options.signal ? { signal: options.signal } : {});
    all.push(...body.items);
    next = body.metadata.continue;
    options.onPage?.(all, next === undefined);
  } while (next && !options.signal?.aborted);
  return all;
}
