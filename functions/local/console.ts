/**
 * The web console on the local control plane's own origin: `/` is its index.html, `/assets/…` its
 * content-hashed files; every other path is the API's. On AWS, CloudFront serves the same files from
 * S3 with the same headers (infra/lib/console.ts).
 */
import { readFileSync, statSync } from "node:fs";
import { extname, join, normalize, sep } from "node:path";
import { CONSOLE_SECURITY_HEADERS } from "../../packages/console/headers";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".map": "application/json",
  ".txt": "text/plain; charset=utf-8",
};

/** Paths the console owns; everything else (`/v1/…`, `/openapi.json`, `/healthz`, `/.well-known/…`) is the API's. */
export const isConsolePath = (path: string) => path === "/" || path === "/index.html" || path.startsWith("/assets/");

type Fetch<R extends unknown[]> = (request: Request, ...rest: R) => Response | Promise<Response>;

const TITLES: Record<number, string> = { 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed" };

/** A refusal as the API words its own: an RFC 9457 problem (docs/api.md), with the console's headers. */
function problem(status: 400 | 404 | 405, detail: string, extra: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ type: "about:blank", title: TITLES[status], status, detail }), {
    status,
    headers: { "content-type": "application/problem+json", ...extra, ...CONSOLE_SECURITY_HEADERS },
  });
}

/** True when `file` is a regular file: not a directory, not missing, not a name no file can have (a NUL). */
function isFile(file: string): boolean {
  try {
    return statSync(file, { throwIfNoEntry: false })?.isFile() === true;
  } catch {
    return false;
  }
}

/** `fetch` serving the console built in `dir` (scripts/build-console.ts) in front of the API's `fetch`. */
export function withConsole<R extends unknown[]>(api: Fetch<R>, dir: string): Fetch<R> {
  const root = normalize(dir) + sep;
  return (request, ...rest) => {
    const path = new URL(request.url).pathname;
    if (!isConsolePath(path)) return api(request, ...rest);
    if (request.method !== "GET" && request.method !== "HEAD")
      return problem(405, `${request.method} is not served here; the console's files are read with GET`, { allow: "GET, HEAD" });
    let decoded: string;
    try {
      decoded = path === "/" ? "/index.html" : decodeURIComponent(path);
    } catch {
      return problem(400, `the path ${path} is not valid percent-encoding`);
    }
    const file = normalize(join(root, decoded));
    if (!file.startsWith(root) || !isFile(file)) {
      const detail =
        decoded === "/index.html" ? "the console is not built: run `npx tsx scripts/build-console.ts` (npm start does)" : `no console file at ${path}`;
      return problem(404, detail);
    }
    const hashed = path.startsWith("/assets/");
    return new Response(request.method === "HEAD" ? null : readFileSync(file), {
      status: 200,
      headers: {
        "content-type": TYPES[extname(file)] ?? "application/octet-stream",
        // Asset names carry their content hash; index.html must be read again to find new ones.
        "cache-control": hashed ? "public, max-age=31536000, immutable" : "no-cache",
        ...CONSOLE_SECURITY_HEADERS,
      },
    });
  };
}
