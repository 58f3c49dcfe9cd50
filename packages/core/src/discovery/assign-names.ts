import type { DiscoveryResult, Mesh } from "../api/discovery";
import { type FieldError, ValidationError } from "../errors";
import { discoveredName, workloadName } from "./names";

/**
 * The Deployment that runs a mesh's control plane: what the agent saw, or, from an agent that does
 * not say, the name Istio's and OSM's charts give it.
 */
export function meshController(spec: Mesh["spec"]): string {
  if (spec.controller !== undefined) return spec.controller;
  if (spec.type === "osm") return "osm-controller";
  return spec.istio?.revision === undefined ? "istiod" : `istiod-${spec.istio.revision}`;
}

/** The control plane's name for a mesh of `cluster` (docs/api.md, "Discovered names"). */
export function meshName(spec: Mesh["spec"], cluster: string): string {
  return discoveredName({ name: meshController(spec), namespace: spec.namespace, cluster });
}

/** Maps the names an agent used in one list to the names the control plane gives. */
function renames<T extends { metadata: { name: string } }>(
  items: readonly T[],
  list: string,
  nameOf: (item: T) => string,
  errors: FieldError[],
): Map<string, string> {
  const given = new Map<string, string>();
  const taken = new Map<string, number>();
  items.forEach((item, i) => {
    const name = nameOf(item);
    const first = taken.get(name);
    if (first !== undefined) errors.push({ path: `${list}[${i}]`, message: `is the same object as ${list}[${first}] (${name})` });
    else taken.set(name, i);
    if (given.has(item.metadata.name)) errors.push({ path: `${list}[${i}].metadata.name`, message: `is used twice in this report` });
    given.set(item.metadata.name, name);
  });
  return given;
}

/**
 * Gives every object of one cluster's discovery report the control plane's name, derived from what
 * the agent saw and the cluster it authenticated as — never the name the agent chose — and rewrites
 * the report's references (a workload's or destination's mesh, a destination's workloads) to match.
 * The agent's names serve only to resolve those references inside the report. Throws
 * ValidationError, naming the field, when a reference resolves to nothing in the report or one object
 * is reported twice; nothing is stored then. Assumes `checkCluster` has passed.
 */
export function assignDiscoveredNames(result: DiscoveryResult, cluster: string): DiscoveryResult {
  const errors: FieldError[] = [];
  const meshes = renames(result.meshes, "meshes", (m) => meshName(m.spec, cluster), errors);
  const workloads = renames(result.workloads, "workloads", (w) => workloadName({ ...w.spec, cluster }), errors);
  renames(result.destinations, "destinations", (d) => discoveredName({ ...d.spec, cluster }), errors);
  const meshOf = (given: string, path: string): string => {
    const name = meshes.get(given);
    if (name === undefined) errors.push({ path, message: `names no mesh of this report (${given})` });
    return name ?? given;
  };
  const out: DiscoveryResult = {
    meshes: result.meshes.map((m) => ({ ...m, metadata: { ...m.metadata, name: meshName(m.spec, cluster) } })),
    workloads: result.workloads.map((w, i) => ({
      ...w,
      metadata: { ...w.metadata, name: workloadName({ ...w.spec, cluster }) },
      spec: { ...w.spec, mesh: meshOf(w.spec.mesh, `workloads[${i}].spec.mesh`) },
    })),
    destinations: result.destinations.map((d, i) => ({
      ...d,
      metadata: { ...d.metadata, name: discoveredName({ ...d.spec, cluster }) },
      spec: {
        ...d.spec,
        mesh: meshOf(d.spec.mesh, `destinations[${i}].spec.mesh`),
        workloads: d.spec.workloads.map((given, j) => {
          const name = workloads.get(given);
          if (name === undefined) errors.push({ path: `destinations[${i}].spec.workloads[${j}]`, message: `names no workload of this report (${given})` });
          return name ?? given;
        }),
      },
    })),
  };
  if (errors.length > 0) throw new ValidationError("discovery report does not hold together; nothing was stored", errors);
  return out;
}
