import { z } from "zod";
import type { Store } from "../../store/index";
import { PlanInputCache, planWrites } from "../../translation/plan";
import { DOCUMENT_BODY_TYPES, type Route, route } from "../route";
import { applyBody, applyBodyDoc } from "../schemas";
import { validateDocuments } from "../../intent/documents";

export interface PlanDeps {
  store: Store;
  now: () => Date;
}

const planResult = z.object({
  clusters: z.record(
    z.string(),
    z.object({
      added: z.array(z.unknown()),
      changed: z.array(z.unknown()),
      previous: z
        .array(z.unknown())
        .meta({ description: "each changed object as the cluster's latest snapshot has it, in the order of `changed` (for a diff)" }),
      removed: z.array(z.object({ apiVersion: z.string(), kind: z.string(), namespace: z.string().optional(), name: z.string() })),
    }),
  ),
  statuses: z.record(z.string(), z.unknown()),
});

/** `POST /v1/plan`: a dry run of `POST /v1/apply` (translation/plan.ts). */
export function planRoutes(deps: PlanDeps): Route[] {
  const planner = { store: deps.store, now: deps.now, cache: new PlanInputCache(deps.store) };
  return [
    route({
      method: "post",
      path: "/v1/plan",
      tag: "apply",
      access: "viewer",
      summary: "What each cluster's snapshot and each policy's status would become with these documents; nothing is stored",
      body: applyBody,
      bodyDoc: applyBodyDoc,
      bodyTypes: DOCUMENT_BODY_TYPES,
      responses: { 200: { description: "per-cluster changes and statuses", schema: planResult } },
      handler: async (c, { body }) => c.json(await planWrites(planner, c.get("tenantId"), validateDocuments(body.documents))),
    }),
  ];
}
