import {
  DOCUMENT_SCHEMAS,
  USER_KINDS,
  USER_KIND_NAMES,
  type StoredResource,
  type UserDocument,
  type UserKind,
  ValidationError,
  parseLabelSelector,
} from "@meshplane/core/base";
import type { Context } from "hono";
import { type IntentDeps, createResource, deleteResource, replaceResource } from "../../intent/write";
import { type AppEnv, withLog } from "../context";
import { listPage, namePosition } from "../pagination";
import { type Route, route } from "../route";
import { labelSelectorQuery, listOf, nameParams, storedDocument } from "../schemas";

export type ResourceDeps = Omit<IntentDeps, "log">;

/** What an `If-Match` may be: one entity tag, quoted or not, weak or not, or `*`; the document says the same. */
export const IF_MATCH = /^\s*(?:W\/)?"?([^"\s]+)"?\s*$/;

/** `If-Match: "12"` (or W/"12", or 12) → "12"; `*` and absence → undefined. */
export function parseIfMatch(header: string | undefined): string | undefined {
  if (header === undefined || header.trim() === "*") return undefined;
  const m = IF_MATCH.exec(header);
  if (!m) throw new ValidationError("invalid If-Match header", [{ path: "headers.if-match", message: 'must be an entity tag such as "12"' }]);
  return m[1];
}

function respond(c: Context<AppEnv>, resource: StoredResource, status: 200 | 201 = 200): Response {
  c.header("etag", `"${resource.metadata.resourceVersion}"`);
  return c.json(resource, status);
}

/** The body of a PUT, which must name the resource of its path. */
function namedAs<D extends { metadata: { name: string } }>(doc: D, name: string): D {
  if (doc.metadata.name !== name) {
    throw new ValidationError("invalid request body", [{ path: "metadata.name", message: `must match the name in the path (${name})` }]);
  }
  return doc;
}

/** Parses `labelSelector` or fails naming the query parameter. */
function selectorOf(text: string | undefined) {
  try {
    return parseLabelSelector(text ?? "");
  } catch (error) {
    throw new ValidationError("invalid label selector", [{ path: "query.labelSelector", message: (error as Error).message }]);
  }
}

function kindRoutes(deps: ResourceDeps, kind: UserKind): Route[] {
  const { store } = deps;
  const base = `/v1/${USER_KINDS[kind].plural}`;
  const item = storedDocument(kind);
  const body = DOCUMENT_SCHEMAS[kind];
  return [
    route({
      method: "get",
      path: base,
      tag: kind,
      access: "viewer",
      summary: `List ${kind}s, a page at a time`,
      query: labelSelectorQuery,
      responses: { 200: { description: "one page of the list, sorted by name", schema: listOf(item) } },
      handler: async (c, { query }) => {
        const tenantId = c.get("tenantId");
        const selector = selectorOf(query.labelSelector);
        const page = await listPage(query, ["resources", tenantId, kind, selector], namePosition, (request) =>
          store.resources.page(tenantId, kind, selector, request),
        );
        return c.json(page);
      },
    }),
    route({
      method: "post",
      path: base,
      tag: kind,
      access: "editor",
      summary: `Create a ${kind}`,
      body,
      responses: { 201: { description: "created", schema: item } },
      handler: async (c, { body: doc }) => respond(c, await createResource(withLog(c, deps), c.get("tenantId"), doc as UserDocument), 201),
    }),
    route({
      method: "get",
      path: `${base}/{name}`,
      tag: kind,
      access: "viewer",
      summary: `Get a ${kind}`,
      params: nameParams,
      responses: { 200: { description: "the resource", schema: item } },
      handler: async (c, { params }) => respond(c, await store.resources.get(c.get("tenantId"), kind, params.name)),
    }),
    route({
      method: "put",
      path: `${base}/{name}`,
      tag: kind,
      access: "editor",
      body,
      summary: `Replace a ${kind}; If-Match (or metadata.resourceVersion) makes it conditional (412 when stale)`,
      headers: { "If-Match": { description: "resourceVersion the change is based on", pattern: IF_MATCH } },
      params: nameParams,
      responses: { 200: { description: "replaced", schema: item } },
      handler: async (c, { body: sent, params: { name } }) => {
        const doc = namedAs(sent, name) as UserDocument;
        const ifMatch = parseIfMatch(c.req.header("if-match"));
        return respond(c, await replaceResource(withLog(c, deps), c.get("tenantId"), c.get("principal"), doc, ifMatch));
      },
    }),
    route({
      method: "delete",
      path: `${base}/{name}`,
      tag: kind,
      access: "editor",
      summary: `Delete a ${kind}`,
      headers: { "If-Match": { description: "resourceVersion the deletion is based on", pattern: IF_MATCH } },
      params: nameParams,
      responses: { 200: { description: "deleted; the body is the resource as it was", schema: item } },
      handler: async (c, { params }) =>
        c.json(await deleteResource(withLog(c, deps), c.get("tenantId"), kind, params.name, parseIfMatch(c.req.header("if-match")))),
    }),
  ];
}

/** CRUD for every user resource kind. */
export function resourceRoutes(deps: ResourceDeps): Route[] {
  return USER_KIND_NAMES.flatMap((kind) => kindRoutes(deps, kind));
}
