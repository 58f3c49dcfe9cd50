import { z } from "zod";
import { dnsLabel, exactlyOne, objectRef } from "./common";
import { destinationSelector } from "./selectors";

const sharedTrust = z.strictObject({
  rootCertificateAuthority: z
    .strictObject({
      /** meshplane makes and holds the root (its key only ever stored encrypted). */
      generated: z
        .strictObject({
          ttlDays: z.number().int().min(1, "must be at least 1").max(36500, "must be at most 36500").optional(),
          keyAlgorithm: z.enum(["ECDSA_P256", "RSA_2048", "RSA_4096"]).optional(),
          orgName: z.string().min(1).max(64).optional(),
        })
        .optional(),
      /** Bring your own PKI: meshplane's signing CA is signed by the user's CA, whose key meshplane never sees. */
      external: z.strictObject({ keyAlgorithm: z.enum(["ECDSA_P256", "RSA_2048", "RSA_4096"]).optional() }).optional(),
    })
    .refine((r) => (r.generated === undefined) !== (r.external === undefined), { message: "set exactly one of generated or external" })
    .meta(exactlyOne("generated", "external"))
    .optional(),
  intermediateCertOptions: z
    .strictObject({
      ttlDays: z.number().int().min(1, "must be at least 1").max(3650, "must be at most 3650").optional(),
      rotateBeforeDays: z.number().int().min(0, "must be at least 0").optional(),
    })
    .refine((o) => o.rotateBeforeDays === undefined || o.rotateBeforeDays < (o.ttlDays ?? 365), {
      message: "rotateBeforeDays must be less than ttlDays",
      path: ["rotateBeforeDays"],
    })
    // JSON Schema cannot compare two fields: it says the default case, the description the rest.
    .meta({
      description: "rotateBeforeDays must be less than ttlDays (365 when absent)",
      if: { not: { required: ["ttlDays"] } },
      // oxlint-disable-next-line unicorn/no-thenable -- JSON Schema's if/then, not a promise
      then: { properties: { rotateBeforeDays: { maximum: 364 } } },
    })
    .optional(),
});

const mtlsConfig = z
  .strictObject({
    shared: sharedTrust.optional(),
    // Accepted by the schema so the error can say exactly what is wrong instead of "unknown field".
    limited: z.unknown().optional().meta({ not: {}, description: "not supported yet" }),
    autoRestartPods: z.boolean().optional(),
  })
  .superRefine((m, ctx) => {
    if (m.limited !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["limited"],
        message: "limited trust is not supported yet; use shared trust or omit mtlsConfig",
      });
    }
  });

const federation = z.strictObject({
  selectors: z
    .array(
      z.strictObject({
        destinationSelectors: z.array(destinationSelector).optional(),
        meshes: z.array(objectRef).optional(),
      }),
    )
    .optional(),
  hostnameSuffix: z
    .string()
    .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/, "must be a DNS suffix such as global")
    .optional(),
  eastWestGateways: z.array(z.strictObject({ destinationSelector: destinationSelector, portName: dnsLabel.optional() })).optional(),
});

/**
 * The objects its member meshes' TrafficPolicies become (docs/ambient.md#the-output-api): `ISTIO`
 * (VirtualService and DestinationRule, acting in the callers' sidecars) or `GATEWAY_API` (an
 * HTTPRoute per service, taking effect in sidecars and on the service's waypoint, beside the
 * DestinationRule). Absent: `GATEWAY_API` for a mesh where ztunnel runs, else `ISTIO`.
 */
export const routingApi = z.enum(["ISTIO", "GATEWAY_API"]);
export type RoutingApi = z.infer<typeof routingApi>;

/**
 * Waypoints on demand (docs/ambient.md#waypoints-on-demand): `ON_DEMAND` lets meshplane create a
 * waypoint (a Gateway of class istio-waypoint it owns, one per namespace) and bind a service to it
 * (the label istio.io/use-waypoint on the Service) when a policy needs one; `MANUAL` (the default)
 * leaves waypoints to the user and the policy's status names the one to create. `waypointMeshes`
 * narrows ON_DEMAND to those member meshes (the per-mesh opt-in).
 */
export const waypointMode = z.enum(["MANUAL", "ON_DEMAND"]);
export type WaypointMode = z.infer<typeof waypointMode>;

const routing = z
  .strictObject({
    api: routingApi.optional(),
    waypoints: waypointMode.optional(),
    waypointMeshes: z.array(objectRef).min(1, "must list at least one mesh").optional(),
  })
  .refine((r) => r.api !== undefined || r.waypoints !== undefined, { message: "set api, waypoints or both" })
  .refine((r) => r.waypointMeshes === undefined || r.waypoints === "ON_DEMAND", {
    message: "waypointMeshes needs waypoints ON_DEMAND",
    path: ["waypointMeshes"],
  })
  .meta({
    description: "set api, waypoints or both; waypointMeshes needs waypoints ON_DEMAND",
    anyOf: [{ required: ["api"] }, { required: ["waypoints"] }],
    dependentRequired: { waypointMeshes: ["waypoints"] },
  });

export const virtualMeshSpec = z.strictObject({
  meshes: z.array(objectRef).min(1, "must list at least one mesh"),
  mtlsConfig: mtlsConfig.optional(),
  federation: federation.optional(),
  globalAccessPolicy: z.enum(["ENABLED", "DISABLED"]).optional(),
  routing: routing.optional(),
});
export type VirtualMeshSpec = z.infer<typeof virtualMeshSpec>;
