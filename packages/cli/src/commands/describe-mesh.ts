/**
 * `describe mesh NAME`: a discovered mesh and its data plane (docs/ambient.md#what-discovery-sees) —
 * whether ztunnel runs (its namespace and version) and, when it does, the network and istiod's
 * multi-network flag ambient multicluster needs, the cluster's Gateway API (HTTPRoute and its retry), its waypoints with what each is for and the
 * destinations and workloads each serves, and its workloads counted per data plane.
 */
import { type MeshDataPlaneView, type DiscoveredDataPlaneView, describeMeshDataPlane, ztunnelText } from "@meshplane/core";
import { type Client, listAll } from "../client";
import { type Kind, kindOf } from "../kinds";
import { formatData } from "../output";
import { streamsOf } from "../runtime";
import { findDiscovered, printer } from "./describe-parts";

/** What discovery reported for ambient multicluster (docs/ambient.md#ambient-multicluster); absent from an older agent. */
interface MultiNetworkReport {
  enabled: boolean | "unknown";
  network?: string;
}

const NOT_REPORTED = "unknown: the cluster's agent does not report it (upgrade the agent)";

/**
 * The `Network` and `Multi-network` fields of a mesh whose ztunnel runs: the network of its Istio
 * namespace and whether istiod runs with AMBIENT_ENABLE_MULTI_NETWORK=true, each `unknown` (and why)
 * where discovery could not tell.
 */
export function multiNetworkFields(namespace: string, report: MultiNetworkReport | undefined): [string, string][] {
  if (report === undefined)
    return [
      ["Network", NOT_REPORTED],
      ["Multi-network", NOT_REPORTED],
    ];
  const enabled =
    report.enabled === "unknown"
      ? "unknown: istiod takes AMBIENT_ENABLE_MULTI_NETWORK from a ConfigMap or Secret, which discovery does not read"
      : report.enabled
        ? "on (istiod's AMBIENT_ENABLE_MULTI_NETWORK=true)"
        : "off: istiod runs without AMBIENT_ENABLE_MULTI_NETWORK=true; ambient multicluster needs it";
  return [
    ["Network", report.network ?? `none: namespace ${namespace} has no topology.istio.io/network label`],
    ["Multi-network", enabled],
  ];
}

/** What discovery reported of the cluster's HTTPRoute CRD (docs/ambient.md#retries-and-the-crd-channel); absent from an older agent. */
interface GatewayApiReport {
  httpRoute?: { bundleVersion?: string; channel?: string; retry: boolean };
}

/**
 * The `Gateway API` field of an Istio mesh: its cluster's HTTPRoute CRD, its version and channel,
 * and whether it has the `retry` that TrafficPolicy retries need under Gateway API output.
 */
export function gatewayApiField(report: GatewayApiReport | undefined): string {
  if (report === undefined) return "unknown: the cluster's agent does not report it (upgrade the agent and its chart)";
  const crd = report.httpRoute;
  if (crd === undefined) return "none: the cluster has no HTTPRoute CRD";
  const release = [crd.bundleVersion ?? "unannotated version", ...(crd.channel ? [`${crd.channel} channel`] : [])].join(", ");
  return `${release}; HTTPRoute ${crd.retry ? "with retry" : "without retry: TrafficPolicy retries are INVALID under GATEWAY_API output"}`;
}

/** Prints the mesh `name` (in `cluster`, when given) as text, YAML or JSON; exit code 0. */
export async function describeMesh(client: Client, name: string, cluster: string | undefined, output: string): Promise<number> {
  const mesh = (await findDiscovered(client, "mesh", name, cluster)) as unknown as MeshDataPlaneView & {
    spec: { controller?: string; istio?: { trustDomain?: string; ambient?: { multiNetwork?: MultiNetworkReport }; gatewayApi?: GatewayApiReport } };
  };
  // What runs in its mesh, in its cluster: the API filters by both.
  const query = new URLSearchParams({ cluster: mesh.metadata.cluster, mesh: name });
  const [workloads, destinations] = await Promise.all(
    ["workload", "destination"].map((k) => listAll<DiscoveredDataPlaneView>(client, (kindOf(k) as Kind).path, query)),
  );
  const view = describeMeshDataPlane(mesh, workloads ?? [], destinations ?? []);
  if (output !== "text") {
    process.stdout.write(formatData({ mesh, ...view }, output as "yaml" | "json"));
    return 0;
  }
  const p = printer(streamsOf());
  const spec = mesh.spec;
  p.field("Mesh", name);
  p.field(
    "Is",
    `${spec.type} ${spec.version ?? ""}, control plane ${spec.namespace}${spec.controller ? `/${spec.controller}` : ""} in cluster ${spec.cluster}`,
  );
  p.field("Trust domain", spec.istio?.trustDomain);
  p.field("Data plane", ztunnelText(view.ztunnel));
  if (view.ztunnel) for (const [k, v] of multiNetworkFields(spec.namespace, spec.istio?.ambient?.multiNetwork)) p.field(k, v);
  if (spec.istio) p.field("Gateway API", gatewayApiField(spec.istio.gatewayApi));
  p.field("Workloads", view.workloads.map((w) => `${w.count} ${w.dataPlane}`).join(", ") || "none discovered");
  p.heading("Waypoints");
  if (view.waypoints.length === 0) p.line(view.ztunnel ? "none: L7 policies need a waypoint" : "none");
  for (const w of view.waypoints) {
    const serves = [
      ...(w.destinations.length > 0 ? [`destinations ${w.destinations.join(", ")}`] : []),
      ...(w.workloads.length > 0 ? [`workloads ${w.workloads.join(", ")}`] : []),
    ];
    p.line(`${w.namespace}/${w.name} for ${w.for}: ${serves.length > 0 ? `serves ${serves.join("; ")}` : "serves nothing yet"}`);
  }
  return 0;
}
