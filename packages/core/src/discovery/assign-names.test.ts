import { describe, expect, it } from "vitest";
import type { DiscoveryResult } from "../api/discovery";
import { ValidationError } from "../errors";
import { assignDiscoveredNames } from "./assign-names";

/** A report as an agent of `cluster` might send it, under whatever names the agent chose. */
function report(cluster: string, names: { mesh: string; workload: string; destination: string }): DiscoveryResult {
  return {
    meshes: [
      {
        kind: "Mesh",
        metadata: { name: names.mesh, cluster },
        spec: {
          type: "istio",
          cluster,
          namespace: "istio-system",
          controller: "istiod",
          version: "1.24.1",
          istio: { trustDomain: "cluster.local", istiodServiceAccount: "istiod", smartDnsProxyingEnabled: false, gateways: [] },
        },
      },
    ],
    workloads: [
      {
        kind: "Workload",
        metadata: { name: names.workload, cluster },
        spec: {
          kind: "Deployment",
          name: "reviews-v1",
          namespace: "bookinfo",
          cluster,
          mesh: names.mesh,
          labels: { app: "reviews" },
          serviceAccount: "reviews",
        },
      },
    ],
    destinations: [
      {
        kind: "Destination",
        metadata: { name: names.destination, cluster },
        spec: {
          name: "reviews",
          namespace: "bookinfo",
          cluster,
          mesh: names.mesh,
          labels: {},
          selector: { app: "reviews" },
          ports: [{ port: 9080, protocol: "TCP" }],
          subsets: {},
          endpoints: [],
          workloads: [names.workload],
        },
      },
    ],
  };
}

describe("assignDiscoveredNames", () => {
  it("names every object from what the agent saw and its own cluster, whatever name the agent chose", () => {
    // An agent of cluster-2 claims the name of cluster-1's mesh.
    const out = assignDiscoveredNames(
      report("cluster-2", { mesh: "istiod-istio--system-cluster-1", workload: "w", destination: "reviews-bookinfo-cluster-1" }),
      "cluster-2",
    );
    expect(out.meshes[0]?.metadata.name).toBe("istiod-istio--system-cluster-2");
    expect(out.workloads[0]?.metadata.name).toBe("reviews--v1-bookinfo-cluster-2-deployment");
    expect(out.workloads[0]?.spec.mesh).toBe("istiod-istio--system-cluster-2");
    expect(out.destinations[0]?.metadata.name).toBe("reviews-bookinfo-cluster-2");
    expect(out.destinations[0]?.spec.mesh).toBe("istiod-istio--system-cluster-2");
    expect(out.destinations[0]?.spec.workloads).toEqual(["reviews--v1-bookinfo-cluster-2-deployment"]);
  });

  it("derives a mesh's name from its revision when the agent does not name the controller", () => {
    const r = report("c", { mesh: "m", workload: "w", destination: "d" });
    const { controller: _, ...spec } = r.meshes[0]!.spec;
    const out = assignDiscoveredNames({ ...r, meshes: [{ ...r.meshes[0]!, spec: { ...spec, istio: { ...spec.istio!, revision: "1-24" } } }] }, "c");
    expect(out.meshes[0]?.metadata.name).toBe("istiod--1--24-istio--system-c");
  });

  // Waypoint references name Kubernetes objects (a Gateway's namespace and name), not discovered
  // objects: renaming leaves them, the ambient facts of the mesh and each data plane as reported.
  it("keeps the ambient data plane, waypoints and waypoint references as the agent reported them", () => {
    const r = report("c", { mesh: "m", workload: "w", destination: "d" });
    const waypoint = { name: "waypoint", namespace: "bookinfo" };
    const istio = {
      ...r.meshes[0]!.spec.istio!,
      ambient: { ztunnel: { namespace: "istio-system", version: "1.24.1" } },
      waypoints: [{ ...waypoint, for: "all" as const }],
    };
    const out = assignDiscoveredNames(
      {
        meshes: [{ ...r.meshes[0]!, spec: { ...r.meshes[0]!.spec, istio } }],
        workloads: [{ ...r.workloads[0]!, spec: { ...r.workloads[0]!.spec, dataPlane: "ambient", waypoint } }],
        destinations: [{ ...r.destinations[0]!, spec: { ...r.destinations[0]!.spec, dataPlane: "ambient", waypoint } }],
      },
      "c",
    );
    expect(out.meshes[0]?.spec.istio).toEqual(istio);
    expect([out.workloads[0]?.spec.dataPlane, out.workloads[0]?.spec.waypoint]).toEqual(["ambient", waypoint]);
    expect([out.destinations[0]?.spec.dataPlane, out.destinations[0]?.spec.waypoint]).toEqual(["ambient", waypoint]);
  });

  it("refuses, naming the field, a reference that resolves to nothing in the report", () => {
    const r = report("c", { mesh: "m", workload: "w", destination: "d" });
    const bad = {
      ...r,
      destinations: [{ ...r.destinations[0]!, spec: { ...r.destinations[0]!.spec, mesh: "istiod-istio--system-other", workloads: ["nope"] } }],
    };
    try {
      assignDiscoveredNames(bad, "c");
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).errors.map((e) => e.path)).toEqual(["destinations[0].spec.mesh", "destinations[0].spec.workloads[0]"]);
    }
  });

  it("refuses, naming the field, an object of another cluster", () => {
    const r = report("c", { mesh: "m", workload: "w", destination: "d" });
    const other = { ...r, workloads: [{ ...r.workloads[0]!, spec: { ...r.workloads[0]!.spec, cluster: "elsewhere" } }] };
    try {
      assignDiscoveredNames(other, "c");
      expect.unreachable();
    } catch (error) {
      expect((error as ValidationError).errors.map((e) => e.path)).toEqual(["workloads[0].metadata.cluster"]);
    }
  });

  it("refuses one object reported twice", () => {
    const r = report("c", { mesh: "m", workload: "w", destination: "d" });
    const twice = { ...r, destinations: [r.destinations[0]!, { ...r.destinations[0]!, metadata: { ...r.destinations[0]!.metadata, name: "d2" } }] };
    expect(() => assignDiscoveredNames(twice, "c")).toThrow("discovery report does not hold together");
  });
});
