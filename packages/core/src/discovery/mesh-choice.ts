import type { Mesh } from "../api/discovery";

/**
 * The Istio mesh a proxy with `revision` (its `istio.io/rev`) belongs to, among `meshes` sorted by
 * name: the istiod serving that revision, else the default (non-revisioned) istiod — which is what the
 * injection webhook without a revision selects — else the first. `default` is Istio's own name for
 * "no revision". Undefined only when there is no Istio mesh.
 */
export function istioMeshFor(meshes: readonly Mesh[], revision: string | undefined): Mesh | undefined {
  const istio = meshes.filter((mesh) => mesh.spec.type === "istio");
  const wanted = revision === "default" || revision === "" ? undefined : revision;
  const byRevision = wanted === undefined ? undefined : istio.find((mesh) => mesh.spec.istio?.revision === wanted);
  return byRevision ?? istio.find((mesh) => mesh.spec.istio?.revision === undefined) ?? istio[0];
}

/** The first OSM mesh by name (a cluster runs at most one in practice), or undefined. */
export function osmMesh(meshes: readonly Mesh[]): Mesh | undefined {
  return meshes.find((mesh) => mesh.spec.type === "osm");
}
