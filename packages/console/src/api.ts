/**
 * The console's one way to the control plane: same-origin fetches with the signed-in credential in
 * the Authorization header (never in a URL), problem+json errors turned into ApiError, and lists read
 * a page at a time with the API's `continue` token.
 */
import { session } from "./session";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** The fields the API named, `path: message`. */
    readonly fieldErrors: { path: string; message: string }[] = [],
  ) {
    super(message);
  }
}

interface Problem {
  title?: string;
  detail?: string;
  errors?: { path: string; message: string }[];
}

export interface Answer<T> {
  body: T;
  etag: string | null;
}

export async function request<T>(method: string, path: string, options: { body?: unknown; headers?: Record<string, string>; signal?: AbortSignal } = {}): Promise<Answer<T>> {
  const token = session.token();
  const res = await fetch(path, {
    method,
    credentials: "omit",
    headers: {
      accept: "application/json",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(options.body === undefined ? {} : { "content-type": "application/json" }),
      ...options.headers,
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const text = await res.text();
  const parsed: unknown = text ? safeJson(text) : undefined;
  if (!res.ok) {
    const problem = (parsed ?? {}) as Problem;
    if (res.status === 401) session.expired();
    throw new ApiError(res.status, problem.detail ?? problem.title ?? `${res.status} ${res.statusText}`, problem.errors ?? []);
  }
  return { body: parsed as T, etag: res.headers.get("etag") };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { detail: text.slice(0, 200) };
  }
}

export interface Page<T> {
  items: T[];
  metadata: { continue?: string };
}

/**
 * Reads a list a page at a time, handing each page over as it arrives (a long list shows its first
 * rows at once); resolves with every item. Stops when `signal` aborts.
 */
export async function listAll<T>(path: string, options: { pageSize?: number; onPage?: (items: T[], done: boolean) => void; signal?: AbortSignal } = {}): Promise<T[]> {
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
