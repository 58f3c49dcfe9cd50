import { z } from "zod";
import { type HeaderDoc, type Route, pathParameterNames } from "./route";

const problemSchema = {
  type: "object",
  required: ["type", "title", "status"],
  properties: {
    type: { type: "string" },
    title: { type: "string" },
    status: { type: "integer" },
    detail: { type: "string" },
    requestId: { type: "string" },
    errors: { type: "array", items: { type: "object", required: ["path", "message"], properties: { path: { type: "string" }, message: { type: "string" } } } },
  },
} as const;

function jsonSchema(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  const out = z.toJSONSchema(schema, { io, unrepresentable: "any", target: "draft-2020-12" }) as Record<string, unknown>;
  delete out.$schema;
  return out;
}

const problemRef = { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } };

function errorResponses(route: Route): Record<string, unknown> {
  const out: Record<string, unknown> = {
    500: { description: "unexpected error (logged; quote the request id)", content: problemRef },
    // Node's HTTP parser answers this itself, before the app sees the request (API Gateway has its own limit).
    431: { description: "request headers over 16 KiB; no body, and the connection is closed" },
  };
  if (route.body || route.query || headerDocs(route).some(([, h]) => h.pattern))
    out[400] = { description: "invalid input; errors name each field or header", content: problemRef };
  if (route.body) out[413] = { description: `body over ${(route.maxBodyBytes ?? 1024 * 1024) / (1024 * 1024)} MiB`, content: problemRef };
  if (route.access !== "public") {
    out[401] = { description: "missing, unknown, revoked or expired token", content: problemRef };
    out[403] = { description: "the token's role does not allow this", content: problemRef };
  }
  // Every route, public ones too: refused requests (401, 403) spend a budget of their own per source
  // and credential (docs/api.md, "Rate limits").
  out[429] = {
    description: "over the rate limit of this kind of request (per tenant; per cluster for agents; refused requests per source and credential)",
    headers: { "Retry-After": { description: "seconds until the budget renews", schema: { type: "integer", minimum: 1 } } },
    content: problemRef,
  };
  if (route.path.includes("{")) out[404] = { description: "not found", content: problemRef };
  if (route.method === "post" || route.method === "put") out[409] = { description: "conflict", content: problemRef };
  if (route.headers?.["If-Match"]) out[412] = { description: "If-Match is stale", content: problemRef };
  return out;
}

function parameters(route: Route): unknown[] {
  const declared = route.params ? ((jsonSchema(route.params, "input") as { properties?: Record<string, unknown> }).properties ?? {}) : {};
  const params: unknown[] = pathParameterNames(route.path).map((name) => ({ name, in: "path", required: true, schema: declared[name] ?? { type: "string" } }));
  if (route.query) {
    const schema = jsonSchema(route.query, "input") as { properties?: Record<string, unknown> };
    for (const [name, s] of Object.entries(schema.properties ?? {})) params.push({ name, in: "query", required: false, schema: s });
  }
  for (const [name, h] of headerDocs(route)) {
    params.push({
      name,
      in: "header",
      required: false,
      description: h.description,
      schema: { type: "string", ...(h.pattern ? { pattern: h.pattern.source } : {}) },
    });
  }
  return params;
}

const headerDocs = (route: Route): [string, HeaderDoc][] =>
  Object.entries(route.headers ?? {}).map(([name, h]) => [name, typeof h === "string" ? { description: h } : h]);

const YAML_TYPE = /yaml/;

/**
 * The request body per media type. A YAML body is a stream of documents, each what one item of
 * JSON's `documents` is (JSON Schema describes one document; the stream is in the description).
 */
function requestBody(route: Route, schema: Record<string, unknown>): Record<string, unknown> {
  const item = (schema.properties as { documents?: { items?: unknown } } | undefined)?.documents?.items;
  const content = Object.fromEntries(
    (route.bodyTypes ?? ["application/json"]).map((t) => [t, { schema: YAML_TYPE.test(t) && item !== undefined ? item : schema }]),
  );
  return {
    required: true,
    ...(item !== undefined ? { description: "JSON `{documents: [...]}`, or YAML: one to 99 documents separated by `---`" } : {}),
    content,
  };
}

/** The OpenAPI 3.1 document of `routes`, generated from the same definitions the router uses. */
export function openApiDocument(routes: readonly Route[], version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const op: Record<string, unknown> = {
      operationId: `${r.method}${r.path.replace(/[{}]/g, "").replace(/[/.-]+(\w)/g, (_m, ch: string) => ch.toUpperCase())}`,
      summary: r.summary,
      tags: [r.tag],
      security: r.access === "public" ? [] : [{ bearer: [] }],
      parameters: parameters(r),
      // A route's own word on a status (its description) wins over the generic one; errors are problems.
      responses: {
        ...errorResponses(r),
        ...Object.fromEntries(
          Object.entries(r.responses).map(([code, doc]) => [
            code,
            {
              description: doc.description,
              ...(doc.schema
                ? { content: { "application/json": { schema: jsonSchema(doc.schema, "output") } } }
                : Number(code) >= 400
                  ? { content: problemRef }
                  : {}),
            },
          ]),
        ),
      },
    };
    if (r.access !== "public") op["x-meshplane-access"] = r.access;
    if (r.body) op.requestBody = requestBody(r, jsonSchema(r.bodyDoc ?? r.body, "input"));
    (paths[r.path] ??= {})[r.method] = op;
  }
  return {
    openapi: "3.1.0",
    info: { title: "meshplane API", version, description: "Multi-tenant management plane for service meshes." },
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "tenant token (mpt_…) or operator credential (mpo_…)" } },
      schemas: { Problem: problemSchema },
    },
    paths,
  };
}
