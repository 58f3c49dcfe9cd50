import { z } from "zod";

export const STATES = ["PENDING", "ACCEPTED", "INVALID", "FAILED"] as const;
export const state = z.enum(STATES);
export type State = z.infer<typeof state>;

const perDestination = z.strictObject({
  state,
  acceptanceOrder: z.number().int().optional(),
  errors: z.array(z.string()).optional(),
});

/** Status of any user resource (docs/resources.md#status). The server owns it; clients never write it. */
export const resourceStatus = z.strictObject({
  observedGeneration: z.number().int(),
  state,
  errors: z.array(z.string()).optional(),
  destinations: z.record(z.string(), perDestination).optional(),
  workloads: z.array(z.string()).optional(),
  meshes: z
    .record(
      z.string(),
      z.strictObject({
        state,
        errors: z.array(z.string()).optional(),
        /** Shared trust of this member mesh (docs/shared-trust.md#status). */
        trust: z
          .strictObject({
            state: z.enum(["PENDING", "ISSUED", "ROTATING", "FAILED"]),
            phase: z.enum(["STABLE", "ADDING_ROOT", "SWITCHING", "DROPPING"]).optional(),
            rootFingerprint: z.string().optional(),
            notAfter: z.string().optional(),
            errors: z.array(z.string()).optional(),
          })
          .optional(),
      }),
    )
    .optional(),
  clusters: z.record(z.string(), z.strictObject({ generation: z.number().int(), applied: z.boolean(), errors: z.array(z.string()).optional() })).optional(),
});
export type ResourceStatus = z.infer<typeof resourceStatus>;

/** The status a resource has before its first translation. */
export function pendingStatus(generation: number): ResourceStatus {
  return { observedGeneration: generation, state: "PENDING" };
}
