import type { Mesh } from "../api/discovery";
import { type ClusterIndex, compareStrings } from "./cluster-index";
import { imageVersion } from "./images";
import { discoveredName } from "./names";

export const OSM_CONTROLLER = "osm-controller";

/**
 * The OSM meshes of a cluster: one per Deployment named `osm-controller` running an image whose
 * name contains `osm-controller` (docs/resources.md#discovery). The name alone is not enough: other
 * products ship Deployments called that, and the image is what tells us the version.
 */
export function discoverOsmMeshes(index: ClusterIndex): Mesh[] {
  const meshes: Mesh[] = [];
  for (const deployment of index.objects.deployments) {
    const { name, namespace = "" } = deployment.metadata;
    if (name !== OSM_CONTROLLER) continue;
    const controller = deployment.spec.template.spec.containers.find((c) => c.image?.includes(OSM_CONTROLLER));
    if (!controller?.image) continue;
    meshes.push({
      kind: "Mesh",
      metadata: { name: discoveredName({ name, namespace, cluster: index.cluster }), cluster: index.cluster },
      spec: { type: "osm", cluster: index.cluster, namespace, controller: name, version: imageVersion(controller.image) },
    });
  }
  return meshes.toSorted((a, b) => compareStrings(a.metadata.name, b.metadata.name));
}
