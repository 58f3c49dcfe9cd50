/**
 * One small fetch client for the control plane's HTTP API, shared by the CLI and the console: the
 * bearer credential in the Authorization header (never in a URL), JSON in and out, and every answer
 * of 400 or more turned into one ApiError. Browser-safe: no Node.js import.
 */
import { ApiError, type Problem, problemOf, retryAfterSeconds } from "./api-error";

export interface HttpClientOptions {
  /** Put before every path; "" (the default) sends each request to the page's own origin. */
  baseUrl?: string;
  /** The bearer credential, read at each request (it may change between requests); none is sent when empty. */
  token: () => string | null | undefined;
  /** Headers of every request (a `user-agent`); a request's own headers win over them. */
  headers?: Record<string, string>;
  /** The ApiError's message for an error answer; by default its detail, else its title, else `HTTP <status>`. */
  message?: (answer: { status: number; statusText: string; problem: Problem }) => string;
  /** Called on every 401, before the ApiError is thrown (the console forgets its credential). */
  onUnauthorized?: () => void;
  /** The fetch to use (the global one by default). Whatever it throws is thrown as it is. */
  fetch?: typeof fetch;
}

export interface HttpRequestOptions {
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as it is, with its own content type (`application/yaml`); wins over `body`. */
  text?: { contentType: string; body: string };
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export interface HttpAnswer<T> {
  status: number;
  /** The parsed JSON of a JSON answer; the text of any other; undefined when the answer is empty. */
  body: T;
  headers: Headers;
}

export interface HttpClient {
  readonly baseUrl: string;
  /** Answers below 400; throws ApiError for any other answer, and what fetch throws when there is none. */
  request<T = unknown>(method: string, path: string, options?: HttpRequestOptions): Promise<HttpAnswer<T>>;
}

/** A client for `options.baseUrl` (trailing slashes dropped). */
export function createHttpClient(options: HttpClientOptions): HttpClient {
  const baseUrl = (options.baseUrl ?? "").replace(/\/+$/, "");
  const message = options.message ?? (({ status, problem }) => problem.detail ?? problem.title ?? `HTTP ${status}`);
  return {
    baseUrl,
    async request<T>(method: string, path: string, o: HttpRequestOptions = {}): Promise<HttpAnswer<T>> {
      const token = options.token();
      const payload = o.text ? o.text : o.body !== undefined ? { contentType: "application/json", body: JSON.stringify(o.body) } : undefined;
      const doFetch = options.fetch ?? fetch;
      const res = await doFetch(baseUrl + path, {
        method,
        // Only the bearer credential authenticates: no cookie goes with a request.
        credentials: "omit",
        headers: {
          accept: "application/json",
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(payload ? { "content-type": payload.contentType } : {}),
          ...options.headers,
          ...o.headers,
        },
        ...(payload ? { body: payload.body } : {}),
        ...(o.signal ? { signal: o.signal } : {}),
      });
      const body = bodyOf(res.headers, await res.text());
      if (res.status >= 400) {
        if (res.status === 401) options.onUnauthorized?.();
        const problem = problemOf(body);
        throw new ApiError(res.status, message({ status: res.status, statusText: res.statusText, problem }), problem.errors, {
          title: problem.title,
          detail: problem.detail,
          requestId: res.headers.get("x-request-id") ?? undefined,
          retryAfterSeconds: retryAfterSeconds(res.headers),
        });
      }
      return { status: res.status, body: body as T, headers: res.headers };
    },
  };
}

/** JSON when the answer says it is JSON (`application/json`, `application/problem+json`) and parses; its text otherwise. */
function bodyOf(headers: Headers, text: string): unknown {
  if (text.length === 0) return undefined;
  if (!(headers.get("content-type") ?? "").includes("json")) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
