/**
 * The HTTP API, as the CLI speaks it: bearer credential, JSON in and out, problem+json turned into
 * an ApiError that names each bad field, and 429 answered by waiting its Retry-After (bounded).
 */
export interface FieldError {
  path: string;
  message: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors: FieldError[] = [],
    readonly requestId?: string,
  ) {
    super(message);
  }
}

export interface Client {
  url: string;
  request<T = unknown>(method: string, path: string, options?: { body?: unknown; yaml?: string; headers?: Record<string, string> }): Promise<{ status: number; body: T; headers: Headers }>;
}

const MAX_RATE_LIMIT_WAITS = 5;

export function createClient(url: string, token: string, options: { userAgent: string; sleep?: (ms: number) => Promise<void> }): Client {
  const base = url.replace(/\/+$/, "");
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  return {
    url: base,
    async request<T>(method: string, path: string, o: { body?: unknown; yaml?: string; headers?: Record<string, string> } = {}) {
      const headers: Record<string, string> = { authorization: `Bearer ${token}`, "user-agent": options.userAgent, accept: "application/json", ...o.headers };
      let body: string | undefined;
      if (o.yaml !== undefined) {
        headers["content-type"] = "application/yaml";
        body = o.yaml;
      } else if (o.body !== undefined) {
        headers["content-type"] = "application/json";
        body = JSON.stringify(o.body);
      }
      for (let attempt = 0; ; attempt++) {
        let res: Response;
        try {
          res = await fetch(base + path, { method, headers, ...(body !== undefined ? { body } : {}) });
        } catch (error) {
          const cause = (error as { cause?: { code?: string; message?: string } }).cause;
          throw new ApiError(0, `cannot reach the control plane at ${base}: ${cause?.code ?? cause?.message ?? (error as Error).message}`);
        }
        if (res.status === 429 && attempt < MAX_RATE_LIMIT_WAITS) {
          await res.arrayBuffer();
          const seconds = Number(res.headers.get("retry-after") ?? 1);
          await sleep(Math.min(Math.max(Number.isFinite(seconds) ? seconds : 1, 1), 30) * 1000);
          continue;
        }
        const text = await res.text();
        let parsed: unknown = text;
        if ((res.headers.get("content-type") ?? "").includes("json") && text.length > 0) {
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = text;
          }
        }
        if (res.status >= 400) throw problemError(res.status, parsed, res.headers.get("x-request-id") ?? undefined);
        return { status: res.status, body: parsed as T, headers: res.headers };
      }
    },
  };
}

function problemError(status: number, body: unknown, requestId: string | undefined): ApiError {
  const p = (typeof body === "object" && body !== null ? body : {}) as { title?: string; detail?: string; errors?: FieldError[] };
  const detail = p.detail ?? p.title ?? (typeof body === "string" && body.length > 0 ? body.slice(0, 200) : `HTTP ${status}`);
  const hint = status === 401 ? " (log in again: `meshplane login`)" : "";
  return new ApiError(status, `${detail}${hint}`, Array.isArray(p.errors) ? p.errors : [], requestId);
}
