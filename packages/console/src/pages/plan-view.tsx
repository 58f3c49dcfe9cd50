/** The editor's preview: a plan of `POST /v1/plan` (docs/api.md#plan-a-change) and the output API to plan each mesh with. */
import { type PlanView as Plan, type PlannedObjectView, plannedObjectName, statusChanges } from "@meshplane/core/views";
import { structuredPatch } from "diff";
import { stringify } from "yaml";
import type { MeshView } from "../data";
import { Errors, StateBadge } from "../ui";

export type { Plan };

const asYaml = (o: unknown) => stringify(o, { lineWidth: 0 });
const title = (o: PlannedObjectView) => plannedObjectName({ kind: o.kind, ...o.metadata });

/** The output API per mesh name that a preview asks for; a mesh left out keeps its VirtualMesh's choice. */
export type Routing = Record<string, "ISTIO" | "GATEWAY_API">;

/**
 * One select per Istio mesh: as its VirtualMesh says, ISTIO or GATEWAY_API — what the preview plans
 * it with (a migration's plan, docs/ambient.md#migration). Nothing of it is stored.
 */
export function RoutingChoice({ meshes, routing, onChange }: { meshes: readonly MeshView[]; routing: Routing; onChange: (next: Routing) => void }) {
  const istio = meshes.filter((m) => m.spec.type === "istio");
  if (istio.length === 0) return null;
  const set = (mesh: string, value: string) => {
    const { [mesh]: _, ...rest } = routing;
    onChange(value === "ISTIO" || value === "GATEWAY_API" ? { ...rest, [mesh]: value } : rest);
  };
  return (
    <fieldset class="filters routing">
      <legend>Output API to preview with (not stored: to switch, set spec.routing.api on the mesh's VirtualMesh)</legend>
      {istio.map((m) => (
        <label key={m.metadata.name}>
          {m.metadata.name} ({m.spec.cluster})
          <select value={routing[m.metadata.name] ?? ""} onChange={(e) => set(m.metadata.name, (e.target as HTMLSelectElement).value)}>
            <option value="">as now (its VirtualMesh's choice or the default)</option>
            <option value="ISTIO">ISTIO (VirtualService)</option>
            <option value="GATEWAY_API">GATEWAY_API (HTTPRoute)</option>
          </select>
        </label>
      ))}
    </fieldset>
  );
}

/** The plan: each routed mesh's output API, every resource's predicted state (before → after where it changes), then each cluster's objects. */
export function PlanView({ plan }: { plan: Plan }) {
  const clusters = Object.entries(plan.clusters).sort(([a], [b]) => a.localeCompare(b));
  const routing = Object.entries(plan.routing ?? {});
  return (
    <div class="plan" aria-live="polite">
      <h2>Preview</h2>
      {routing.length > 0 && (
        <>
          <h3>Output API</h3>
          <ul>
            {routing.map(([mesh, r]) => (
              <li key={mesh}>
                {mesh} ({r.cluster}): {r.from} → {r.to} {r.state !== "ACCEPTED" && <StateBadge state={r.state} />}
                <Errors errors={r.errors} />
              </li>
            ))}
          </ul>
        </>
      )}
      <h3>Predicted states</h3>
      <ul>
        {statusChanges(plan).map(({ key, before, after, reasons }) => (
          <li key={key}>
            {key}:{" "}
            {before !== undefined && (
              <>
                <StateBadge state={before} /> →{" "}
              </>
            )}
            <StateBadge state={after} />
            <Errors errors={reasons} />
          </li>
        ))}
      </ul>
      <h3>What each cluster would get</h3>
      {clusters.length === 0 && <p>No cluster is registered.</p>}
      {clusters.map(([cluster, c]) => {
        const total = c.added.length + c.changed.length + c.removed.length;
        return (
          <details key={cluster} open={total > 0}>
            <summary>
              cluster {cluster}: {total === 0 ? "no change" : `${c.added.length} added, ${c.changed.length} changed, ${c.removed.length} removed`}
            </summary>
            {c.added.map((o) => (
              <details key={`+${title(o)}`} class="added">
                <summary>+ {title(o)}</summary>
                <pre>{asYaml(o)}</pre>
              </details>
            ))}
            {c.changed.map((o, i) => {
              const before = c.previous?.[i];
              const hunks = before ? structuredPatch("before", "after", asYaml(before), asYaml(o), "", "", { context: 2 }).hunks : [];
              return (
                <details key={`~${title(o)}`} class="changed" open>
                  <summary>~ {title(o)}</summary>
                  <pre>
                    {hunks.flatMap((h) => [
                      <span class="hunk" key={`h${h.oldStart}`}>{`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@\n`}</span>,
                      ...h.lines.map((line, j) => (
                        <span key={`${h.oldStart}-${j}`} class={line.startsWith("+") ? "ins" : line.startsWith("-") ? "del" : ""}>{`${line}\n`}</span>
                      )),
                    ])}
                  </pre>
                </details>
              );
            })}
            {c.removed.map((o) => (
              <p key={`-${plannedObjectName(o)}`} class="removed">
                − {plannedObjectName(o)}
              </p>
            ))}
          </details>
        );
      })}
    </div>
  );
}
