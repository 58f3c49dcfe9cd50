import { ValidationError, parseOrThrow } from "@meshplane/core/base";
import type { Context } from "hono";
import type { Document } from "yaml";
import type { z } from "zod";
import type { Access } from "./middleware/auth";
import type { AppEnv } from "./context";

export type Method = "get" | "post" | "put" | "delete";

/** A request header a route reads: its description, and the syntax the route enforces (400 otherwise). */
export interface HeaderDoc {
  description: string;
  pattern?: RegExp;
}

export interface ResponseDoc {
  description: string;
  schema?: z.ZodType;
}

/**
 * One endpoint, described once: the app registers it and the OpenAPI document is generated from the
 * same object, so the two cannot drift apart.
 */
export interface Route {
  method: Method;
  /** OpenAPI path syntax: `/v1/trafficpolicies/{name}`. */
  path: string;
  summary: string;
  tag: string;
  access: Access;
  body?: z.ZodType;
  /** Accepted request media types; JSON unless said otherwise. */
  bodyTypes?: readonly string[];
  /**
   * The body as the document describes it, where the route checks more after `body` parsed (each
   * of apply's documents against its kind's schema); `body` otherwise.
   */
  bodyDoc?: z.ZodType;
  query?: z.ZodType;
  /** The path parameters (an object schema with one string field per `{name}` of `path`). */
  params?: z.ZodType;
  /** Body size limit; 1 MiB unless a route needs more. */
  maxBodyBytes?: number;
  headers?: Record<string, string | HeaderDoc>;
  responses: Record<number, ResponseDoc>;
  handle: (c: Context<AppEnv>) => Promise<Response>;
}

interface Input<B, Q, P> {
  body: B;
  query: Q;
  params: P;
}

/** The names of the parameters in an OpenAPI path: `/v1/x/{name}` → `["name"]`. */
export const pathParameterNames = (path: string): string[] => [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);

/**
 * Declares a route whose handler receives its path parameters, body and query already parsed by
 * their schemas (400 naming the field: `path.name`, `query.limit`, `metadata.name`). A route whose
 * path has parameters declares them all in `params`; throws at definition otherwise.
 */
export function route<B extends z.ZodType = z.ZodUnknown, Q extends z.ZodType = z.ZodUnknown, P extends z.ZodType = z.ZodUnknown>(
  def: Omit<Route, "handle" | "body" | "query" | "params"> & {
    body?: B;
    query?: Q;
    params?: P;
    handler: (c: Context<AppEnv>, input: Input<z.infer<B>, z.infer<Q>, z.infer<P>>) => Promise<Response>;
  },
): Route {
  const { handler, ...rest } = def;
  const names = pathParameterNames(def.path);
  const declared = Object.keys((def.params as { shape?: Record<string, unknown> } | undefined)?.shape ?? {});
  if (names.join() !== declared.join())
    throw new Error(
      `${def.method.toUpperCase()} ${def.path}: params must declare exactly ${names.join(", ") || "nothing"}, in order; it declares ${declared.join(", ") || "nothing"}`,
    );
  return {
    ...rest,
    handle: async (c) => {
      const params = def.params ? parseOrThrow(def.params, c.req.param(), "path parameters", "path") : undefined;
      const body = def.body ? await readBody(c, def.body, def.bodyTypes ?? ["application/json"]) : undefined;
      const query = def.query ? parseOrThrow(def.query, c.req.query(), "query", "query") : undefined;
      return handler(c, { body: body as z.infer<B>, query: query as z.infer<Q>, params: params as z.infer<P> });
    },
  };
}

const YAML_TYPES = new Set(["application/yaml", "application/x-yaml", "text/yaml"]);

/** Media types of routes that take documents: JSON `{documents: [...]}` or multi-document YAML. */
export const DOCUMENT_BODY_TYPES: readonly string[] = ["application/json", ...YAML_TYPES];

/** Reads and validates a request body. Errors name the header or field at fault. */
async function readBody(c: Context<AppEnv>, schema: z.ZodType, types: readonly string[]): Promise<unknown> {
  const mime = (c.req.header("content-type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  if (!types.includes(mime)) {
    throw new ValidationError("unsupported content type", [
      { path: "headers.content-type", message: `must be ${types.join(" or ")}, got ${mime || "nothing"}` },
    ]);
  }
  const text = await c.req.text();
  let value: unknown;
  if (YAML_TYPES.has(mime)) {
    // Most bodies are JSON: the YAML parser is loaded on the first YAML body.
    const { parseAllDocuments } = await import("./yaml");
    const docs = parseAllDocuments(text);
    const bad = docs.flatMap((d) => d.errors);
    if (bad.length > 0) throw new ValidationError("malformed YAML", [{ path: "(body)", message: `malformed YAML: ${bad[0]?.message.split("\n")[0]}` }]);
    value = { documents: docs.map((d, i) => yamlValue(d, i)).filter((d) => d !== null) };
  } else {
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new ValidationError("malformed JSON", [{ path: "(body)", message: `malformed JSON: ${(error as Error).message}` }]);
    }
  }
  return parseOrThrow(schema, value, "request body");
}

/** Aliases a YAML document may expand: enough for any real policy, too few for a billion-laughs body. */
export const YAML_MAX_ALIASES = 100;

/**
 * One YAML document as plain data. Resolving aliases is where a document can still be bad after it
 * parsed — an alias to an anchor that does not exist, or more aliases than `YAML_MAX_ALIASES` — and
 * that is the client's mistake: a 400 naming the document, not a 500.
 */
function yamlValue(doc: Document, index: number): unknown {
  try {
    return doc.toJS({ maxAliasCount: YAML_MAX_ALIASES });
  } catch (error) {
    const message = (error as Error).message.split("\n")[0] ?? "";
    throw new ValidationError("malformed YAML", [{ path: `documents[${index}]`, message: `YAML document ${index + 1}: ${message}` }]);
  }
}

/** `/v1/x/{name}` → `/v1/x/:name` for the router. */
export const honoPath = (path: string): string => path.replace(/\{([^}]+)\}/g, ":$1");
