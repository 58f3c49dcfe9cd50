import type { WriteResult } from "../../store/index";
import { type IntentDeps, applyDocuments } from "../../intent/write";
import { withLog } from "../context";
import { DOCUMENT_BODY_TYPES, route } from "../route";
import { applyBody, applyBodyDoc, applyResult } from "../schemas";

/** What the answer says of each document's write. */
const resultOf = (r: WriteResult) => ({
  kind: r.resource.kind,
  name: r.resource.metadata.name,
  action: r.action,
  generation: r.resource.metadata.generation,
  resourceVersion: r.resource.metadata.resourceVersion,
});

/** `POST /v1/apply`: create-or-replace many documents atomically, a result per document (functions/intent/write.ts). */
export function applyRoutes(deps: Omit<IntentDeps, "log">) {
  return [
    route({
      method: "post",
      path: "/v1/apply",
      tag: "apply",
      access: "editor",
      summary: "Create or replace up to 99 documents in one atomic change (JSON {documents} or multi-document YAML)",
      body: applyBody,
      bodyDoc: applyBodyDoc,
      bodyTypes: DOCUMENT_BODY_TYPES,
      responses: {
        200: { description: "a result per document, in order", schema: applyResult },
        412: { description: "a document's metadata.resourceVersion is stale (it acts as If-Match); nothing was applied" },
      },
      handler: async (c, { body }) => {
        const results = await applyDocuments(withLog(c, deps), c.get("tenantId"), c.get("principal"), body.documents);
        return c.json({ results: results.map(resultOf) });
      },
    }),
  ];
}
