import { type StatusReasons, reasonsOf } from "./describe";

/** An object of a plan's cluster change: its kind and metadata are what the readers show. */
export interface PlannedObjectView {
  apiVersion?: string;
  kind: string;
  metadata: { name: string; namespace?: string };
}

/** A status as a plan gives it: its state and reasons. */
export type PlannedStatusView = StatusReasons & { state: string };

/** What a plan's `routing` does to one mesh. */
export interface RoutingChangeView {
  cluster: string;
  from: string;
  to: string;
  state: string;
  errors?: string[];
}

/** The answer of `POST /v1/plan` as the CLI and the console read it (docs/api.md#plan-a-change). */
export interface PlanView {
  clusters: Record<
    string,
    {
      added: PlannedObjectView[];
      changed: PlannedObjectView[];
      previous?: PlannedObjectView[];
      removed: { kind: string; name: string; namespace?: string }[];
    }
  >;
  statuses: Record<string, PlannedStatusView>;
  /** Absent from servers that predate it: every state then reads as unchanged. */
  previousStatuses?: Record<string, PlannedStatusView>;
  routing?: Record<string, RoutingChangeView>;
}

/** One resource's predicted status: `before` only where the plan changes what the status says. */
export interface StatusChange {
  key: string;
  before?: string;
  after: string;
  reasons: string[];
}

/** Every resource's predicted state, by `Kind/name`, with the stored state where it changes, and the new reasons. */
export function statusChanges(plan: PlanView): StatusChange[] {
  return Object.entries(plan.statuses)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, status]) => {
      const before = plan.previousStatuses?.[key]?.state;
      return { key, ...(before === undefined ? {} : { before }), after: status.state, reasons: reasonsOf(status) };
    });
}

/** Whether the plan would leave a resource INVALID, or asks for an output API a mesh cannot serve (the CLI's exit 1). */
export function planInvalid(plan: PlanView): boolean {
  return Object.values(plan.statuses).some((s) => s.state === "INVALID") || Object.values(plan.routing ?? {}).some((r) => r.state === "INVALID");
}

/** `kind namespace/name` of a planned or removed object. */
export function plannedObjectName(o: { kind: string; name: string; namespace?: string }): string {
  return `${o.kind} ${o.namespace ? `${o.namespace}/` : ""}${o.name}`;
}
