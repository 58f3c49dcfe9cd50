import { z } from "zod";
import { port } from "./common";
import { destinationSelector, identitySelector } from "./selectors";
import { httpMethod } from "./traffic-policy";

/** Istio path syntax: exact, `prefix*`, `*suffix` or `*` alone. */
const accessPath = z.string().regex(/^[/*](?:[^*]*[\s\S])?$/, "must be a path such as /api/v1, /api/* or *.json ('*' only at the start or the end)");

export const accessPolicySpec = z.strictObject({
  sourceSelector: z.array(identitySelector).optional(),
  destinationSelector: z.array(destinationSelector).optional(),
  allowedPaths: z.array(accessPath).optional(),
  allowedMethods: z.array(httpMethod).optional(),
  allowedPorts: z.array(port).optional(),
});
export type AccessPolicySpec = z.infer<typeof accessPolicySpec>;
