import type { MiddlewareHandler } from "hono";
import { ForbiddenError, UnauthorizedError } from "../shared/errors";
import type { Role, Store } from "../store/index";
import type { AppEnv } from "./context";

/** Who may call a route: nobody needs a credential, the operator only, or a tenant role at least. */
export type Access = "public" | "operator" | Role;

const RANK: Record<Role, number> = { viewer: 1, editor: 2, admin: 3 };

/**
 * Resolves the bearer credential and enforces `access`. The tenant id is taken from the verified
 * credential alone, so no route can be steered to another tenant by a path or a body.
 */
export function authorize(store: Store, access: Access, now: () => Date): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (access === "public") return next();
    const header = c.req.header("authorization") ?? "";
    const match = /^Bearer ([A-Za-z0-9_-]{10,200})$/.exec(header);
    if (!match) throw new UnauthorizedError("a bearer token is required (Authorization: Bearer <token>)");
    const principal = await store.tokens.authenticate(match[1] as string, now());
    if (!principal) throw new UnauthorizedError("the token is unknown, revoked or expired");
    if (access === "operator") {
      if (principal.kind !== "operator") throw new ForbiddenError("this endpoint needs the operator credential");
    } else {
      if (principal.kind !== "tenant") throw new ForbiddenError("this endpoint needs a tenant token");
      if (RANK[principal.role] < RANK[access]) throw new ForbiddenError(`this endpoint needs the ${access} role; the token has ${principal.role}`);
      c.set("tenantId", principal.tenantId);
    }
    c.set("principal", principal);
    c.set("log", c.get("log").child({ tenant: principal.kind === "tenant" ? principal.tenantId : "(operator)" }));
    return next();
  };
}
