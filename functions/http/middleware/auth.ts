import type { Context, MiddlewareHandler } from "hono";
import { authenticateAgent } from "../../auth/agent-jwt";
import { ForbiddenError, UnauthorizedError } from "../../shared/errors";
import type { Role, Store } from "../../store/index";
import type { AppEnv } from "../context";

/** Who may call a route: anyone, the operator, a tenant role at least, or a cluster's agent. */
export type Access = "public" | "operator" | "agent" | Role;

const RANK: Record<Role, number> = { viewer: 1, editor: 2, admin: 3 };

/**
 * Resolves the bearer credential and enforces `access`. The tenant id is taken from the verified
 * credential alone, so no route can be steered to another tenant by a path or a body.
 */
export function authorize(store: Store, access: Access, now: () => Date, apiUrl: (c: Context<AppEnv>) => string): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (access === "public") return next();
    if (access === "agent") {
      const { tenantId, cluster, head } = await authenticateAgent(
        { authorization: c.req.header("authorization"), method: c.req.method },
        { store, now, apiUrl: apiUrl(c) },
      );
      const agent = { tenantId, cluster, head };
      c.set("agent", agent);
      c.set("tenantId", agent.tenantId);
      c.set("log", c.get("log").child({ tenant: agent.tenantId, cluster: agent.cluster }));
      return next();
    }
    const header = c.req.header("authorization") ?? "";
    // The scheme is case-insensitive (RFC 9110 §11.1): `bearer` is as good as `Bearer`.
    const match = /^bearer ([A-Za-z0-9_-]{10,200})$/i.exec(header);
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
