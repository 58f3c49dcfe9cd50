import { type AgentClaims, MAX_AGENT_TOKEN_SECONDS, agentClaims, dnsLabel } from "@meshplane/core/base";
import { type JWK, decodeJwt, decodeProtectedHeader, importJWK, jwtVerify } from "jose";
import { UnauthorizedError } from "../shared/errors";
import type { ClusterHead, Store } from "../store/index";

const CLOCK_SKEW_SECONDS = 30;

/** Who an agent call comes from: the tenant and cluster its verified token names, and the cluster's head. */
export interface AgentIdentity {
  tenantId: string;
  cluster: string;
  head: ClusterHead;
}

/** An agent's verified token: who it is from, and the claims a caller may still need to spend or end on. */
export interface VerifiedAgent extends AgentIdentity {
  /** The token's id (spent already unless the call is a GET-bound read). */
  jti: string;
  /** The token's `exp`, in seconds since the epoch. */
  expiresAt: number;
}

/** What checking an agent's token reads: the store, the clock, and this API's URL (the tokens' audience). */
export interface AgentAuthDeps {
  store: Store;
  now: () => Date;
  apiUrl: string;
}

/** An agent call as far as authentication looks at it: its Authorization header and its method. */
export interface AgentRequest {
  authorization: string | undefined;
  method: string;
}

const reject = (why: string): never => {
  throw new UnauthorizedError(`agent credential rejected: ${why}`);
};

/**
 * Verifies an agent's self-signed JWT, carried as `Authorization: Bearer <jwt>`: ES256 by the key
 * registered for the cluster it names (one read of the cluster's head item), issuer `agent`,
 * audience = this API's URL, at most 5 minutes long, not expired, for this request's method when it
 * names one (`htm`), and — unless it is a read bound to GET — a `jti` never seen before (spent here).
 * The tenant and cluster come from the verified token alone. Throws UnauthorizedError with the reason.
 */
export async function authenticateAgent(request: AgentRequest, deps: AgentAuthDeps): Promise<VerifiedAgent> {
  const token = /^bearer ([A-Za-z0-9_.-]{20,4096})$/i.exec(request.authorization ?? "")?.[1] ?? reject("a bearer JWT is required");
  let unverified: AgentClaims;
  let kid: unknown;
  try {
    kid = decodeProtectedHeader(token).kid;
    unverified = agentClaims.parse(decodeJwt(token));
  } catch {
    return reject("not an agent JWT");
  }
  if (!dnsLabel.safeParse(unverified.tenant).success || !dnsLabel.safeParse(unverified.sub).success) reject("bad tenant or cluster claim");
  const head = await deps.store.snapshots.head(unverified.tenant, unverified.sub);
  if (!head?.agentKey || head.agentKid !== kid) return reject("no agent with this key is registered for the cluster");
  if (head.deregistering === true) return reject("the cluster is being deregistered");
  const now = deps.now();
  let claims: AgentClaims;
  try {
    const key = await importJWK(head.agentKey as JWK, "ES256");
    const verified = await jwtVerify(token, key, {
      algorithms: ["ES256"],
      issuer: "agent",
      audience: deps.apiUrl,
      subject: unverified.sub,
      currentDate: now,
      clockTolerance: CLOCK_SKEW_SECONDS,
      maxTokenAge: MAX_AGENT_TOKEN_SECONDS + CLOCK_SKEW_SECONDS,
      requiredClaims: ["iat", "exp", "jti"],
    });
    claims = agentClaims.parse(verified.payload);
  } catch (error) {
    return reject((error as { code?: string }).code ?? "invalid token");
  }
  if (claims.exp - claims.iat > MAX_AGENT_TOKEN_SECONDS) reject("lifetime over 5 minutes");
  const { method } = request;
  if (claims.htm !== undefined && claims.htm !== method) reject(`the token is for ${claims.htm}, not ${method}`);
  // A token bound to GET can only read the cluster's own signed, audience-bound snapshot: replaying
  // it within its minute gains nothing, so it costs no write. Any other token is accepted once.
  const readOnly = method === "GET" && claims.htm === "GET";
  if (!readOnly && !(await deps.store.snapshots.useJti(claims.tenant, claims.sub, claims.jti, claims.exp))) reject("jti already used");
  return { tenantId: claims.tenant, cluster: claims.sub, head, jti: claims.jti, expiresAt: claims.exp };
}
