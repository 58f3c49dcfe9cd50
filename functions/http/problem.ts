import { type FieldError, MeshplaneError, ValidationError } from "@meshplane/core/base";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { describeError } from "../shared/logger";
import { ConflictError, ForbiddenError, NotFoundError, PayloadTooLargeError, PreconditionFailedError, UnauthorizedError } from "../shared/errors";
import type { AppEnv } from "./context";

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail?: string;
  errors?: FieldError[];
  requestId?: string;
}

const TITLES: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  409: "Conflict",
  412: "Precondition Failed",
  405: "Method Not Allowed",
  413: "Payload Too Large",
  429: "Too Many Requests",
  500: "Internal Server Error",
};

/** An RFC 9457 problem response. */
export function problem(c: Context<AppEnv>, status: ContentfulStatusCode, detail?: string, errors?: FieldError[]): Response {
  const body: Problem = {
    type: "about:blank",
    title: TITLES[status] ?? "Error",
    status,
    ...(detail ? { detail } : {}),
    ...(errors ? { errors } : {}),
    requestId: c.get("requestId"),
  };
  const headers: Record<string, string> = { "content-type": "application/problem+json" };
  if (status === 401) headers["www-authenticate"] = 'Bearer realm="meshplane"';
  return c.body(JSON.stringify(body), status, headers);
}

/** Expected errors and the status each maps to; everything else is a bug and becomes a bare 500. */
const STATUS_OF: [new (...args: never[]) => MeshplaneError, ContentfulStatusCode][] = [
  [ValidationError, 400],
  [UnauthorizedError, 401],
  [ForbiddenError, 403],
  [NotFoundError, 404],
  [ConflictError, 409],
  [PreconditionFailedError, 412],
  [PayloadTooLargeError, 413],
];

/** The one place errors leave the API. Unknown errors are logged with the request id, never echoed. */
export function onError(error: Error, c: Context<AppEnv>): Response {
  for (const [type, status] of STATUS_OF) {
    if (error instanceof type) return problem(c, status, error.message, error instanceof ValidationError ? error.errors : undefined);
  }
  if (error instanceof HTTPException && error.status < 500) return problem(c, error.status as ContentfulStatusCode, error.message);
  const log = c.get("log");
  log?.error("request failed", { method: c.req.method, path: c.req.path, ...describeError(error) });
  return problem(c, 500, `the request failed; quote request id ${c.get("requestId")} when reporting it`);
}
