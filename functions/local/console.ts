/**
 * The web console on the local control plane's own origin: `/` is its index.html, `/assets/…` its
 * content-hashed files; every other path is the API's. On AWS, CloudFront serves the same files from
 * S3 with the same headers (infra/lib/console.ts).
 */
import { existsSync, readFileSync } from "node:fs";
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

/** `fetch` serving the console built in `dir` (scripts/build-console.ts) in front of the API's `fetch`. */
export function withConsole<R extends unknown[]>(api: Fetch<R>, dir: string): Fetch<R> {
  const root = normalize(dir) + sep;
  return (request, ...rest) => {
    const path = new URL(request.url).pathname;
    if (!isConsolePath(path)) return api(request, ...rest);
    if (request.method !== "GET" && request.method !== "HEAD") return new Response(null, { status: 405, headers: { allow: "GET, HEAD", ...CONSOLE_SECURITY_HEADERS } });
    const file = normalize(join(root, path === "/" ? "index.html" : decodeURIComponent(path)));
    if (!file.startsWith(root) || !existsSync(file)) {
      const missing = path === "/" || path === "/index.html" ? "the console is not built: run `npx tsx scripts/build-console.ts` (npm start does)" : "not found";
      return new Response(missing, { status: 404, headers: { "content-type": "text/plain; charset=utf-8", ...CONSOLE_SECURITY_HEADERS } });
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
