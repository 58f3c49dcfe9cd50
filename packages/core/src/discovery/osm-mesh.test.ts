import { describe, expect, it } from "vitest";
import { indexCluster } from "./cluster-index";
import { discoverOsmMeshes } from "./osm-mesh";
import { cluster, controller } from "./test-objects";

describe("discoverOsmMeshes", () => {
  it("finds osm-controller and reads its version from the image tag", () => {
    const deployment = controller("osm-controller", "osm-system", { containers: [{ name: "osm-controller", image: "openservicemesh/osm-controller:v1.2.4" }] });
    expect(discoverOsmMeshes(indexCluster(cluster({ deployments: [deployment] })))).toEqual([
      {
        kind: "Mesh",
        metadata: { name: "osm--controller-osm--system-cluster1", cluster: "cluster1" },
        spec: { type: "osm", cluster: "cluster1", namespace: "osm-system", controller: "osm-controller", version: "1.2.4" },
      },
    ]);
  });

  it.each([
    ["another name", controller("osm-injector", "osm-system", { containers: [{ name: "c", image: "openservicemesh/osm-controller:v1.2.4" }] })],
    ["another image", controller("osm-controller", "osm-system", { containers: [{ name: "c", image: "example/controller:v1" }] })],
  ])("ignores a Deployment with %s", (_what, deployment) => {
    expect(discoverOsmMeshes(indexCluster(cluster({ deployments: [deployment] })))).toEqual([]);
  });
});
