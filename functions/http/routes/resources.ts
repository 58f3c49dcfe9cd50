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
import { z } from "zod";
import { authoredOrigin, parseDocument } from "../../intent/documents";
import { type IntentDeps, createResource, deleteResource, replaceResource } from "../../intent/write";
import { ConflictError, ForbiddenError } from "../../shared/errors";
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

/**
 * A document body of `kind`, checked in the handler rather than by the route, so a resource authored
 * in a cluster is refused for what it is (409) before its dotted name is a 400, and a dotted name in a
 * created document says whose it is (functions/intent/documents.ts).
 */
function documentBody(kind: UserKind, raw: unknown): UserDocument {
  const parsed = parseDocument(kind, raw, "");
  if ("errors" in parsed) throw new ValidationError("invalid request body", parsed.errors);
  return parsed.doc;
}

/** A write through the API to a resource authored in a cluster: refused (409) with the custom resource to change (docs/gitops.md#names-and-sources). */
function refuseAuthored(kind: UserKind, name: string): void {
  const origin = authoredOrigin(kind, name);
  if (origin !== undefined) {
    throw new ConflictError(
      `${kind} ${name} was authored in a cluster and is read-only through the API: change the custom resource ${origin} instead (docs/gitops.md#names-and-sources)`,
    );
  }
}

/**
 * Deleting a resource authored in a cluster through the API is an admin's act, for a cluster gone for
 * good: the agent submits it again while the custom resource exists (docs/gitops.md#names-and-sources).
 */
function refuseAuthoredDelete(c: Context<AppEnv>, kind: UserKind, name: string): void {
  const origin = authoredOrigin(kind, name);
  const principal = c.get("principal");
  if (origin === undefined || (principal.kind === "tenant" && principal.role === "admin")) return;
  throw new ForbiddenError(
    `${kind} ${name} was authored in a cluster: delete the custom resource ${origin} instead; only a tenant admin may delete it here (for a cluster that is gone for good), and its agent submits it again while the custom resource exists`,
  );
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
  const bodyDoc = DOCUMENT_SCHEMAS[kind];
  const body = z.unknown();
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
      bodyDoc,
      responses: { 201: { description: "created", schema: item } },
      handler: async (c, { body: raw }) => respond(c, await createResource(withLog(c, deps), c.get("tenantId"), documentBody(kind, raw)), 201),
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
      bodyDoc,
      summary: `Replace a ${kind}; If-Match (or metadata.resourceVersion) makes it conditional (412 when stale). A resource authored in a cluster is read-only here (409)`,
      headers: { "If-Match": { description: "resourceVersion the change is based on", pattern: IF_MATCH } },
      params: nameParams,
      responses: {
        200: { description: "replaced", schema: item },
        409: { description: "the resource was authored in a cluster: the custom resource there is named, to change instead" },
      },
      handler: async (c, { body: raw, params: { name } }) => {
        refuseAuthored(kind, name);
        const doc = namedAs(documentBody(kind, raw), name);
        const ifMatch = parseIfMatch(c.req.header("if-match"));
        return respond(c, await replaceResource(withLog(c, deps), c.get("tenantId"), c.get("principal"), doc, ifMatch));
      },
    }),
    route({
      method: "delete",
      path: `${base}/{name}`,
      tag: kind,
      access: "editor",
      summary: `Delete a ${kind}; one authored in a cluster only by an admin (403 otherwise)`,
      headers: { "If-Match": { description: "resourceVersion the deletion is based on", pattern: IF_MATCH } },
      params: nameParams,
      responses: {
        200: { description: "deleted; the body is the resource as it was", schema: item },
        403: { description: "the resource was authored in a cluster and the token is not an admin's" },
      },
      handler: async (c, { params }) => {
        refuseAuthoredDelete(c, kind, params.name);
        return c.json(await deleteResource(withLog(c, deps), c.get("tenantId"), kind, params.name, parseIfMatch(c.req.header("if-match"))));
      },
    }),
  ];
}

/** CRUD for every user resource kind. */
export function resourceRoutes(deps: ResourceDeps): Route[] {
  return USER_KIND_NAMES.flatMap((kind) => kindRoutes(deps, kind));
}
