import type { DataPlaneMode } from "./discovery";

/**
 * The data plane a discovered Workload or Destination names; `sidecar` when it names none (an agent
 * that predates ambient reports only sidecars; docs/ambient.md#what-discovery-sees). The one reading
 * of that default for discovery, translation, the agent and the views; no zod here, so the console's
 * bundle can take it.
 */
export function dataPlaneOf<M extends string = DataPlaneMode>(spec: { dataPlane?: M }): M | "sidecar" {
  return spec.dataPlane ?? "sidecar";
}
