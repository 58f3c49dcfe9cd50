import { readFileSync } from "node:fs";

/**
 * The agent's Prometheus client (docs/agent.md#metrics): instant queries over the HTTP API
 * (`POST /api/v1/query`, a form body, so long queries meet no URL limit). Every answer that is not a
 * JSON success — a refused connection, a deadline passed, a proxy's HTML, a 502, a truncated body,
 * `status: "error"`, a result of another shape — is a PrometheusError with a message fit for the
 * cluster's status; nothing here throws anything else. Credentials are read from files (mounted from
 * a Secret) at each query, so a rotated Secret is used without a restart, and never appear in a message.
 */

export type PrometheusAuth = { type: "none" } | { type: "bearer"; tokenFile: string } | { type: "basic"; usernameFile: string; passwordFile: string };

export interface PrometheusOptions {
  /** The base URL (`http://prometheus.monitoring:9090`, or a path prefix such as Mimir's `/prometheus`). */
  url: string;
  auth: PrometheusAuth;
  /** `X-Scope-OrgID`, for multi-tenant backends (Mimir, Cortex, Thanos receive). */
  orgId?: string;
  /** Each query's deadline: sent as `timeout=` and enforced here, whatever the server does. */
  timeoutMs: number;
  /** `limit=`: the most series one answer may hold; an answer cut there is an error, never half a minute. */
  maxSeries: number;
  /** The most bytes read of one answer; reading stops there. */
  maxBodyBytes: number;
  fetch?: typeof fetch;
  readFile?: (path: string) => string;
}

/** One element of an instant vector; `value` as Prometheus wrote it, parsed (`NaN` and `±Inf` included). */
export interface Sample {
  metric: Record<string, string>;
  value: number;
}

export type PrometheusErrorKind = "unreachable" | "timeout" | "http" | "malformed" | "too-large" | "query" | "truncated" | "auth-file";

export class PrometheusError extends Error {
  constructor(
    readonly kind: PrometheusErrorKind,
    message: string,
  ) {
    super(message);
    this.name = "PrometheusError";
  }
}

const TRUNCATED_WARNING = "results truncated due to limit";

/** A Prometheus number (`"12"`, `"NaN"`, `"+Inf"`, `"-Inf"`); anything else is NaN. */
function parseValue(v: unknown): number {
  if (v === "+Inf") return Number.POSITIVE_INFINITY;
  if (v === "-Inf") return Number.NEGATIVE_INFINITY;
  return typeof v === "string" && v.trim() !== "" ? Number(v) : Number.NaN;
}

export class PrometheusClient {
  private readonly where: string;

  constructor(private readonly options: PrometheusOptions) {
    const url = new URL(options.url);
    if (url.username || url.password) throw new Error("the Prometheus URL must not carry credentials: use the auth Secret");
    this.where = `Prometheus at ${url.origin}${url.pathname.replace(/\/+$/, "")}`;
  }

  /**
   * The instant vector of `promql` at `timeSeconds` (epoch seconds). Throws PrometheusError only:
   * unreachable, past the deadline, an HTTP error, an answer that is not Prometheus JSON, larger than
   * `maxBodyBytes`, a query error, or cut at `maxSeries`.
   */
  async query(promql: string, timeSeconds: number): Promise<Sample[]> {
    const body = new URLSearchParams({
      query: promql,
      time: String(timeSeconds),
      timeout: `${Math.max(1, Math.floor(this.options.timeoutMs / 1000))}s`,
      limit: String(this.options.maxSeries),
    });
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.options.timeoutMs);
    try {
      const res = await this.send(body, controller.signal);
      const text = await this.readBounded(res, controller);
      return this.answer(res, text);
    } catch (error) {
      if (error instanceof PrometheusError) throw error;
      if (controller.signal.aborted) throw new PrometheusError("timeout", `${this.where} did not answer within ${this.options.timeoutMs / 1000} s`);
      throw new PrometheusError("unreachable", `${this.where} is unreachable: ${causeOf(error)}`);
    } finally {
      clearTimeout(timer);
    }
  }

  private async send(body: URLSearchParams, signal: AbortSignal): Promise<Response> {
    const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded", accept: "application/json" };
    const authorization = this.authorization();
    if (authorization) headers.authorization = authorization;
    if (this.options.orgId) headers["x-scope-orgid"] = this.options.orgId;
    return (this.options.fetch ?? fetch)(`${this.options.url.replace(/\/+$/, "")}/api/v1/query`, { method: "POST", headers, body, signal });
  }

  private authorization(): string | undefined {
    const auth = this.options.auth;
    if (auth.type === "none") return undefined;
    if (auth.type === "bearer") return `Bearer ${this.secret(auth.tokenFile, "token")}`;
    return `Basic ${Buffer.from(`${this.secret(auth.usernameFile, "username")}:${this.secret(auth.passwordFile, "password")}`).toString("base64")}`;
  }

  private secret(path: string, what: string): string {
    let value: string;
    try {
      value = (this.options.readFile ?? ((p) => readFileSync(p, "utf8")))(path).trim();
    } catch {
      throw new PrometheusError("auth-file", `the Prometheus ${what} cannot be read from ${path} (metrics.prometheus.auth)`);
    }
    if (value === "") throw new PrometheusError("auth-file", `the Prometheus ${what} at ${path} is empty (metrics.prometheus.auth)`);
    return value;
  }

  /** The body as text, reading no more than `maxBodyBytes`: a larger answer is cancelled there. */
  private async readBounded(res: Response, controller: AbortController): Promise<string> {
    const reader = res.body?.getReader();
    if (!reader) return "";
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > this.options.maxBodyBytes) {
        controller.abort();
        await reader.cancel().catch(() => undefined);
        throw new PrometheusError("too-large", `${this.where} answered more than ${this.options.maxBodyBytes} bytes for one query`);
      }
      chunks.push(value);
    }
    return Buffer.concat(chunks).toString("utf8");
  }

  private answer(res: Response, text: string): Sample[] {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      const type = res.headers.get("content-type")?.split(";")[0] ?? "no content type";
      if (!res.ok) throw new PrometheusError("http", `${this.where} answered ${res.status} (${type}), not a Prometheus answer`);
      throw new PrometheusError("malformed", `${this.where} answered ${res.status} with a body that is not JSON (${type}; truncated or not Prometheus)`);
    }
    const body = (typeof json === "object" && json !== null ? json : {}) as Record<string, unknown>;
    if (body.status === "error") {
      const detail = `${String(body.errorType ?? "error")}: ${String(body.error ?? "").slice(0, 300)}`;
      throw new PrometheusError("query", `${this.where} refused the query (${res.status} ${detail})`);
    }
    if (!res.ok || body.status !== "success") throw new PrometheusError("http", `${this.where} answered ${res.status} without a Prometheus success`);
    const warnings = Array.isArray(body.warnings) ? body.warnings : [];
    if (warnings.some((w) => typeof w === "string" && w.includes(TRUNCATED_WARNING))) {
      throw new PrometheusError("truncated", `${this.where} holds more than ${this.options.maxSeries} series for one query (metrics.maxSeries)`);
    }
    return this.vector(body.data);
  }

  private vector(data: unknown): Sample[] {
    const d = (typeof data === "object" && data !== null ? data : {}) as { resultType?: unknown; result?: unknown };
    if (d.resultType !== "vector" || !Array.isArray(d.result)) {
      throw new PrometheusError("malformed", `${this.where} answered a ${String(d.resultType ?? "missing")} result, not an instant vector`);
    }
    return d.result.map((element: unknown, i) => {
      const e = (typeof element === "object" && element !== null ? element : {}) as { metric?: unknown; value?: unknown };
      const metric = e.metric;
      const pair = e.value;
      const labelsOk = typeof metric === "object" && metric !== null && !Array.isArray(metric) && Object.values(metric).every((v) => typeof v === "string");
      if (!labelsOk || !Array.isArray(pair) || pair.length !== 2)
        throw new PrometheusError("malformed", `${this.where} answered a malformed sample (result ${i})`);
      return { metric: metric as Record<string, string>, value: parseValue(pair[1]) };
    });
  }
}

function causeOf(error: unknown): string {
  const e = error as { message?: string; cause?: { code?: string; message?: string } };
  return e.cause?.code ?? e.cause?.message ?? e.message ?? String(error);
}
