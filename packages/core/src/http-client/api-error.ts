/**
 * What the control plane says when it refuses a request: an RFC 9457 problem (`application/problem+json`,
 * docs/api.md) with a title, a detail and the bad fields, and for 429 and 503 how long to wait.
 * Browser-safe: no Node.js import.
 */

/** One field the API named as bad: its path in the request (`spec.http[0].route`) and what is wrong with it. */
export interface FieldError {
  path: string;
  message: string;
}

/** The parts of a problem answer a client reads. */
export interface Problem {
  title?: string;
  /** The problem's `detail`; for an answer that is not a problem object, the start of its text. */
  detail?: string;
  errors: FieldError[];
}

/** How much of a body that is not a problem object is kept as its detail. */
const TEXT_DETAIL_CHARS = 200;

/**
 * An answer of the control plane that is not a success, or no answer at all (`status` 0: the network
 * failed). `message` is what to show a person; the other fields are the problem's own.
 */
export class ApiError extends Error {
  readonly title?: string;
  readonly detail?: string;
  /** The `x-request-id` of the answer, to find it in the control plane's logs. */
  readonly requestId?: string;
  /** `Retry-After` of the answer, in seconds (retryAfterSeconds). */
  readonly retryAfterSeconds?: number;

  constructor(
    readonly status: number,
    message: string,
    readonly errors: FieldError[] = [],
    more: { title?: string; detail?: string; requestId?: string; retryAfterSeconds?: number } = {},
  ) {
    super(message);
    this.title = more.title;
    this.detail = more.detail;
    this.requestId = more.requestId;
    this.retryAfterSeconds = more.retryAfterSeconds;
  }
}

/**
 * The problem an error answer's body carries. A body that is no object (text from a proxy, JSON that
 * did not parse) gives its first 200 characters as the detail; `errors` is always a list.
 */
export function problemOf(body: unknown): Problem {
  if (typeof body === "string") return { detail: body.length > 0 ? body.slice(0, TEXT_DETAIL_CHARS) : undefined, errors: [] };
  const p = (typeof body === "object" && body !== null ? body : {}) as { title?: unknown; detail?: unknown; errors?: unknown };
  return {
    title: typeof p.title === "string" ? p.title : undefined,
    detail: typeof p.detail === "string" ? p.detail : undefined,
    errors: Array.isArray(p.errors) ? (p.errors as FieldError[]) : [],
  };
}

/**
 * `Retry-After` in seconds: the control plane sends a number of seconds, never a date. Undefined when
 * the header is absent or not a number of seconds ≥ 0; the caller decides its own floor and cap.
 */
export function retryAfterSeconds(headers: Headers): number | undefined {
  const value = headers.get("retry-after");
  if (value === null || value.trim() === "") return undefined;
  const seconds = Number(value);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
}
