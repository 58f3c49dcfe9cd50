import { randomUUID } from "node:crypto";
import {
  type AuthoredList,
  type DeleteRequest,
  type DeleteResponse,
  type SubmitRequest,
  type SubmitResponse,
  type SyncRequest,
  authoredList,
  deleteResponse,
  submitResponse,
  syncResponse,
} from "@meshplane/core/authoring";
import {
  type CsrRequest,
  type CsrResponse,
  type DiscoveryReport,
  type RegisterResponse,
  type StatusReport,
  MAX_AGENT_TOKEN_SECONDS,
  csrResponse,
  registerResponse,
  snapshotEtag,
} from "@meshplane/core";
import { ApiError, retryAfterSeconds } from "@meshplane/core/http-client";
import type { z } from "zod";
import { type CryptoKey, type JWK, SignJWT, calculateJwkThumbprint } from "jose";

/** The longest `Retry-After` the agent honours: an hour. */
const MAX_RETRY_AFTER_SECONDS = 3600;

/**
 * An answer the agent could not use is core's ApiError (`status` 0: the network failed), as for the
 * CLI and the console; for 429 and 503 it carries how long the control plane asked to be left alone
 * (`Retry-After`, at most an hour).
 */
function refusal(status: number, message: string, res?: Response): ApiError {
  const seconds = res === undefined ? undefined : retryAfterSeconds(res.headers);
  return new ApiError(status, message, [], { retryAfterSeconds: seconds === undefined ? undefined : Math.min(seconds, MAX_RETRY_AFTER_SECONDS) });
}

export interface AgentKey {
  privateKey: CryptoKey;
  publicJwk: JWK;
}

export interface ClientOptions {
  /** The control plane's base URL, also the audience of every agent JWT. */
  url: string;
  tenant: string;
  cluster: string;
  key: AgentKey;
  fetch?: typeof fetch;
  now?: () => Date;
}

export type SnapshotAnswer = { changed: false } | { changed: true; jws: string; etag: string } | { changed: true; jws: undefined };

/** The agent's half of the protocol (docs/pipeline.md#the-agent-protocol): every call authenticated by a fresh, short JWT. */
export class ControlPlaneClient {
  private kid?: string;

  constructor(private readonly options: ClientOptions) {}

  /**
   * Registers the agent's public key with a one-time bootstrap token. Answers the tenant, the
   * cluster and the cluster's incarnation (undefined: a cluster created before incarnations), which
   * the agent keeps and requires in every snapshot's audience. An answer that does not match the
   * protocol is a ApiError 502.
   */
  static async register(url: string, bootstrapToken: string, publicJwk: JWK, agentVersion: string, doFetch: typeof fetch = fetch): Promise<RegisterResponse> {
    const res = await call(doFetch, `${url}/v1/agent/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ bootstrapToken, publicKey: { kty: publicJwk.kty, crv: publicJwk.crv, x: publicJwk.x, y: publicJwk.y }, agentVersion }),
    });
    return answerOf(registerResponse, "POST /v1/agent/register", await res.json());
  }

  /**
   * A JWT for one call: 60 s lifetime (the server accepts at most MAX_AGENT_TOKEN_SECONDS), never
   * reused, bound to the call's HTTP method when given (a read's token then costs the control plane no
   * replay record).
   */
  async token(method?: "GET" | "POST", lifetimeSeconds = 60): Promise<string> {
    this.kid ??= await calculateJwkThumbprint(this.options.key.publicJwk);
    const now = Math.floor((this.options.now?.() ?? new Date()).getTime() / 1000);
    return new SignJWT({ tenant: this.options.tenant, ...(method ? { htm: method } : {}) })
      .setProtectedHeader({ alg: "ES256", kid: this.kid })
      .setIssuer("agent")
      .setSubject(this.options.cluster)
      .setAudience(this.options.url)
      .setIssuedAt(now)
      .setExpirationTime(now + lifetimeSeconds)
      .setJti(randomUUID())
      .sign(this.options.key.privateKey);
  }

  /**
   * The token that opens the push channel (docs/push.md): bound to GET, and as long as the control
   * plane accepts, since the channel lasts only until it expires and the agent then opens it again.
   * Its `jti` is spent on opening, so a captured copy opens no second channel.
   */
  async pushToken(): Promise<string> {
    return this.token("GET", MAX_AGENT_TOKEN_SECONDS);
  }

  /** The snapshot, unless `current` (generation and hash held) is still current. */
  async snapshot(current?: { generation: number; hash: string }): Promise<SnapshotAnswer> {
    const headers: Record<string, string> = { authorization: `Bearer ${await this.token("GET")}`, "accept-encoding": "gzip" };
    if (current) headers["if-none-match"] = snapshotEtag(current.generation, current.hash);
    const res = await call(this.fetcher, `${this.options.url}/v1/agent/snapshot`, { headers }, [304, 404]);
    if (res.status === 304) return { changed: false };
    if (res.status === 404) return { changed: true, jws: undefined };
    return { changed: true, jws: await res.text(), etag: res.headers.get("etag") ?? "" };
  }

  async discovery(report: DiscoveryReport): Promise<{ changed: boolean }> {
    return this.post("/v1/agent/discovery", report);
  }

  async status(report: StatusReport): Promise<{ changed: boolean }> {
    return this.post("/v1/agent/status", report);
  }

  /**
   * Asks the control plane to sign a mesh's intermediate CA (docs/pipeline.md#the-agent-protocol): only the CSR is sent, never
   * a key. The answer is parsed here, at the boundary; one that does not match the protocol is a
   * ApiError 502 (what a gateway says of an upstream answer it cannot use), as is a refusal
   * with the control plane's own status.
   */
  async csr(request: CsrRequest): Promise<CsrResponse> {
    return answerOf(csrResponse, "POST /v1/agent/csr", await this.post("/v1/agent/csr", request));
  }

  /**
   * Sends one metrics report (docs/observability.md#the-report), already gzipped by the caller, who
   * sizes it against the control plane's limits: `POST /v1/agent/metrics` with
   * `Content-Encoding: gzip`. Resolves once the control plane queued it (202); any other answer is an
   * ApiError (0: unreachable; 429 and 503 carry `retryAfterSeconds`; 400 names the field).
   */
  async postMetrics(gzippedReport: Uint8Array): Promise<void> {
    const res = await call(this.fetcher, `${this.options.url}/v1/agent/metrics`, {
      method: "POST",
      headers: { authorization: `Bearer ${await this.token("POST")}`, "content-type": "application/json", "content-encoding": "gzip" },
      body: gzippedReport,
    });
    await res.body?.cancel();
  }

  /**
   * Submits custom resources of this cluster (docs/gitops.md#the-agent-protocol): a result per item, in
   * order — stored under its authored name, or refused with the reason and every field at fault. An
   * answer that does not match the protocol, or holds another number of results, is an ApiError 502.
   */
  async submitResources(request: SubmitRequest): Promise<SubmitResponse> {
    const answer = answerOf(submitResponse, "POST /v1/agent/resources", await this.post("/v1/agent/resources", request));
    return sameLength(answer, request.items.length, "POST /v1/agent/resources");
  }

  /** Deletes this cluster's authored resources at those uids: `deleted`, `absent` or `kept` per item, in order. */
  async deleteResources(request: DeleteRequest): Promise<DeleteResponse> {
    const answer = answerOf(deleteResponse, "POST /v1/agent/resources/delete", await this.post("/v1/agent/resources/delete", request));
    return sameLength(answer, request.items.length, "POST /v1/agent/resources/delete");
  }

  /** Sends every custom resource the agent holds; the control plane deletes this cluster's others. Answers how many it deleted. */
  async syncResources(request: SyncRequest): Promise<{ deleted: number }> {
    return answerOf(syncResponse, "POST /v1/agent/resources/sync", await this.post("/v1/agent/resources/sync", request));
  }

  /** One page of this cluster's authored resources with their statuses; `cont` is the previous page's `continue`. */
  async authoredResources(cont?: string): Promise<AuthoredList> {
    const query = cont === undefined ? "" : `?continue=${encodeURIComponent(cont)}`;
    const res = await call(this.fetcher, `${this.options.url}/v1/agent/resources${query}`, {
      headers: { authorization: `Bearer ${await this.token("GET")}`, "accept-encoding": "gzip" },
    });
    return answerOf(authoredList, "GET /v1/agent/resources", await res.json());
  }

  private get fetcher(): typeof fetch {
    return this.options.fetch ?? fetch;
  }

  private async post<T>(path: string, body: unknown): Promise<T> {
    const res = await call(this.fetcher, `${this.options.url}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${await this.token("POST")}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return (await res.json()) as T;
  }
}

/**
 * Parses a control-plane answer at the boundary; one that does not match the protocol is a
 * ApiError 502 (what a gateway says of an upstream answer it cannot use).
 */
function answerOf<T>(schema: z.ZodType<T>, what: string, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw refusal(502, `${what}: the answer does not match the protocol (${issue?.path.join(".") ?? ""}: ${issue?.message ?? "invalid"})`);
  }
  return parsed.data;
}

/** An answer with one result per item sent, else an ApiError 502. */
function sameLength<T extends { results: unknown[] }>(answer: T, items: number, what: string): T {
  if (answer.results.length !== items) throw refusal(502, `${what}: ${answer.results.length} results for ${items} items`);
  return answer;
}

async function call(doFetch: typeof fetch, url: string, init: RequestInit, ok: number[] = []): Promise<Response> {
  let res: Response;
  try {
    res = await doFetch(url, init);
  } catch (error) {
    throw refusal(0, `control plane unreachable: ${(error as Error).message}`);
  }
  if (!res.ok && !ok.includes(res.status)) {
    const text = await res.text().catch(() => "");
    throw refusal(res.status, `${init.method ?? "GET"} ${new URL(url).pathname}: ${res.status} ${text.slice(0, 500)}`, res);
  }
  return res;
}

/** The calls the sync stages make; tests pass a fake. */
export type AgentClient = Pick<ControlPlaneClient, "snapshot" | "status" | "csr">;

/** The calls the authoring sync makes (docs/gitops.md#the-agent-protocol); tests pass a fake. */
export type AuthoringClient = Pick<ControlPlaneClient, "submitResources" | "deleteResources" | "syncResources" | "authoredResources">;
