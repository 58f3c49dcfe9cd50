import { dnsLabel } from "@meshplane/core";
import { z } from "zod";

/**
 * The agent's authoring options (chart values `authoring.*`, docs/gitops.md#the-agent): their flags,
 * the environment variables they fall back to, and their schema. `../options.ts` reads them with the rest.
 */

/** Watching the meshplane custom resources and syncing them to the control plane. */
export interface AuthoringOptions {
  /** The namespaces watched; empty: every namespace (one cluster-wide watch per kind). */
  namespaces: string[];
  /** How often the list of what the agent holds is sent (`POST /v1/agent/resources/sync`). */
  syncEveryMs: number;
  /** How often the statuses are read back and written into the custom resources. */
  statusEveryMs: number;
}

export const AUTHORING_FLAGS = {
  authoring: "MESHPLANE_AUTHORING",
  "authoring-namespaces": "MESHPLANE_AUTHORING_NAMESPACES",
  "authoring-sync-every": "MESHPLANE_AUTHORING_SYNC_EVERY_SECONDS",
  "authoring-status-every": "MESHPLANE_AUTHORING_STATUS_EVERY_SECONDS",
} as const;

const seconds = (min: number, max: number, fallback: number) =>
  z.coerce.number().int().min(min, `must be at least ${min} seconds`).max(max, `must be at most ${max} seconds`).default(fallback);

export const authoringFlags = {
  authoring: z
    .enum(["true", "false"], { error: "must be true or false" })
    .default("false")
    .transform((v) => v === "true"),
  "authoring-namespaces": z
    .string()
    .default("")
    .transform((v) =>
      v
        .split(",")
        .map((n) => n.trim())
        .filter((n) => n !== ""),
    )
    .pipe(z.array(dnsLabel).max(100, "must name at most 100 namespaces")),
  "authoring-sync-every": seconds(10, 86_400, 300),
  "authoring-status-every": seconds(1, 3600, 30),
};

type Parsed = z.infer<z.ZodObject<typeof authoringFlags>>;

/** The authoring options from the parsed flags; undefined when off (the default, `--authoring=false`). */
export function authoringOptions(o: Parsed): AuthoringOptions | undefined {
  if (!o.authoring) return undefined;
  return {
    namespaces: [...new Set(o["authoring-namespaces"])].sort(),
    syncEveryMs: o["authoring-sync-every"] * 1000,
    statusEveryMs: o["authoring-status-every"] * 1000,
  };
}
