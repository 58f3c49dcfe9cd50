import { resourceStatus, routingApi } from "@meshplane/core/base";
import { z } from "zod";
import type { Store } from "../../store/index";
import { PlanInputCache, planWrites } from "../../translation/plan";
import { DOCUMENT_BODY_TYPES, type Route, route } from "../route";
import { planBody, planBodyDoc } from "../schemas";
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
  statuses: z.record(z.string(), z.unknown()).meta({ description: "each resource's predicted status, by `Kind/name`" }),
  previousStatuses: z.record(z.string(), resourceStatus).meta({
    description:
      "each stored resource's status where the predicted one differs from what translation last said (state or reasons; not what only agents report): the status before the change",
  }),
  routing: z
    .record(
      z.string(),
      z.object({
        cluster: z.string(),
        from: routingApi.meta({ description: "the output API the mesh has without the plan's routing" }),
        to: routingApi.meta({ description: "the output API it would have: the one asked for, or ISTIO when its Istio cannot serve GATEWAY_API" }),
        state: z.enum(["ACCEPTED", "INVALID"]),
        errors: z.array(z.string()).optional(),
      }),
    )
    .optional()
    .meta({ description: "per mesh the request's routing names (only then)" }),
});

/** `POST /v1/plan`: a dry run of `POST /v1/apply`, and of another output API per mesh (translation/plan.ts). */
export function planRoutes(deps: PlanDeps): Route[] {
  const planner = { store: deps.store, now: deps.now, cache: new PlanInputCache(deps.store) };
  return [
    route({
      method: "post",
      path: "/v1/plan",
      tag: "apply",
      access: "viewer",
      summary:
        "What each cluster's snapshot and each resource's status would become with these documents and, for a migration, another output API per mesh; nothing is stored",
      body: planBody,
      bodyDoc: planBodyDoc,
      bodyTypes: DOCUMENT_BODY_TYPES,
      responses: { 200: { description: "per-cluster changes, statuses before and after, and each routed mesh's output API", schema: planResult } },
      handler: async (c, { body }) => c.json(await planWrites(planner, c.get("tenantId"), validateDocuments(body.documents), body.routing ?? {})),
    }),
  ];
}
