import type { DiscoveryResult, Mesh } from "../api/discovery";
import { type FieldError, ValidationError } from "../errors";
import { discoveredName, workloadName } from "./names";

/**
 * The Deployment that runs a mesh's control plane: what the agent saw, or, from an agent that does
 * not say (one older than the `controller` field), the name Istio's and OSM's charts give it.
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

type Lists = keyof DiscoveryResult;

/**
 * The control plane's name for each object of one list, and a map from the name the agent gave each
 * to it. An object reported twice (two entries the control plane gives one name), or an agent name
 * used twice, is an error naming the entry.
 */
function names<T extends { metadata: { name: string } }>(items: readonly T[], list: Lists, nameOf: (item: T) => string, errors: FieldError[]) {
  const assigned = items.map(nameOf);
  const given = new Map<string, string>();
  const first = new Map<string, number>();
  assigned.forEach((name, i) => {
    const earlier = first.get(name);
    if (earlier !== undefined) errors.push({ path: `${list}[${i}]`, message: `is the same object as ${list}[${earlier}] (${name})` });
    else first.set(name, i);
    const handle = (items[i] as T).metadata.name;
    if (given.has(handle)) errors.push({ path: `${list}[${i}].metadata.name`, message: "is used twice in this report" });
    given.set(handle, name);
  });
  return { assigned, given };
}

/**
 * Checks one cluster's discovery report against the cluster its agent authenticated as, and gives
 * every object the control plane's name, derived from what the agent saw and that cluster — never
 * the name the agent chose (docs/api.md, "Discovered names"). The report's references (a workload's
 * or destination's mesh, a destination's workloads) are rewritten to match; the agent's names only
 * resolve them inside the report. Throws ValidationError, naming each field, when an object names
 * another cluster, a reference resolves to nothing in the report, or one object is reported twice.
 */
export function assignDiscoveredNames(result: DiscoveryResult, cluster: string): DiscoveryResult {
  const errors: FieldError[] = [];
  for (const list of ["meshes", "workloads", "destinations"] as const) {
    result[list].forEach((obj, i) => {
      if (obj.metadata.cluster !== cluster || obj.spec.cluster !== cluster)
        errors.push({ path: `${list}[${i}].metadata.cluster`, message: `must be this agent's cluster (${cluster})` });
    });
  }
  if (errors.length > 0) throw new ValidationError("discovery report names another cluster; nothing was stored", errors);

  const meshes = names(result.meshes, "meshes", (m) => meshName(m.spec, cluster), errors);
  const workloads = names(result.workloads, "workloads", (w) => workloadName({ ...w.spec, cluster }), errors);
  const destinations = names(result.destinations, "destinations", (d) => discoveredName({ ...d.spec, cluster }), errors);
  const resolve = (map: Map<string, string>, what: string, given: string, path: string): string => {
    const name = map.get(given);
    if (name === undefined) errors.push({ path, message: `names no ${what} of this report (${given})` });
    return name ?? given;
  };
  const out: DiscoveryResult = {
    meshes: result.meshes.map((m, i) => ({ ...m, metadata: { ...m.metadata, name: meshes.assigned[i] as string } })),
    workloads: result.workloads.map((w, i) => ({
      ...w,
      metadata: { ...w.metadata, name: workloads.assigned[i] as string },
      spec: { ...w.spec, mesh: resolve(meshes.given, "mesh", w.spec.mesh, `workloads[${i}].spec.mesh`) },
    })),
    destinations: result.destinations.map((d, i) => ({
      ...d,
      metadata: { ...d.metadata, name: destinations.assigned[i] as string },
      spec: {
        ...d.spec,
        mesh: resolve(meshes.given, "mesh", d.spec.mesh, `destinations[${i}].spec.mesh`),
        workloads: d.spec.workloads.map((given, j) => resolve(workloads.given, "workload", given, `destinations[${i}].spec.workloads[${j}]`)),
      },
    })),
  };
  if (errors.length > 0) throw new ValidationError("discovery report does not hold together; nothing was stored", errors);
  return out;
}
