import { Graph, layout } from "@dagrejs/dagre";
import { type MeshDataPlane as DataPlaneView, describeMeshDataPlane, ztunnelText } from "@meshplane/core/views";
import { type MeshView, health, meshes, placedObjects, resources } from "../data";
import { href } from "../router";
import { type FederationLink, type MeshNode, topology } from "../topology-model";
import { Empty, Loaded, Section, StateBadge, useAsync, useTitle, Table } from "../ui";

const NODE_W = 280;
/** Long names are cut in the drawing; the tables below give them whole. */
const short = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
const NODE_H = 78;

/** Lays the meshes out left to right with dagre; edges are federation links, labelled with what they carry. */
function FederationGraph({ nodes, links }: { nodes: MeshNode[]; links: FederationLink[] }) {
  const g = new Graph({ multigraph: true });
  g.setGraph({ rankdir: "LR", nodesep: 40, ranksep: 240, marginx: 16, marginy: 16 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of nodes) g.setNode(n.name, { width: NODE_W, height: NODE_H });
  links.forEach((l, i) => g.setEdge(l.from, l.to, { width: 170, height: 36, labelpos: "c" }, String(i)));
  layout(g);
  const { width = 0, height = 0 } = g.graph();
  const summary = links.map((l) => `${l.from} exports ${l.destinations.length} destination(s) to ${l.to}`).join("; ");
  return (
    <figure class="graph">
      <svg viewBox={`0 0 ${width} ${height}`} width={width} height={height} role="img" aria-label={`Federation graph: ${summary || "no federation"}`}>
        <defs>
          <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse">
            <path d="M 0 0 L 10 5 L 0 10 z" class="arrow" />
          </marker>
        </defs>
        {links.map((l, i) => {
          const e = g.edge(l.from, l.to, String(i));
          const points = e.points ?? [];
          const d = points.map((p: { x: number; y: number }, j: number) => `${j === 0 ? "M" : "L"} ${p.x} ${p.y}`).join(" ");
          return (
            <g key={`${l.from}-${l.to}-${i}`} class="edge">
              <path d={d} marker-end="url(#arrow)" />
              <text x={e.x} y={(e.y ?? 0) - 6} text-anchor="middle">
                {l.destinations.length} destination{l.destinations.length === 1 ? "" : "s"}
              </text>
              <text x={e.x} y={(e.y ?? 0) + 10} text-anchor="middle" class="small">
                via {short(l.gateways[0] ?? "its east-west gateway", 30)}
                {l.gateways.length > 1 ? ` +${l.gateways.length - 1}` : ""}
              </text>
            </g>
          );
        })}
        {nodes.map((n) => {
          const p = g.node(n.name);
          const x = (p.x ?? 0) - NODE_W / 2;
          const y = (p.y ?? 0) - NODE_H / 2;
          return (
            <g
              key={n.name}
              class={`node ${n.state === "ACCEPTED" ? "ok" : n.state === "INVALID" || n.state === "FAILED" ? "bad" : n.virtualMesh ? "wait" : "none"}`}
            >
              <rect x={x} y={y} width={NODE_W} height={NODE_H} rx={8} />
              <text x={x + 12} y={y + 22} class="title">
                {short(n.name, 34)}
              </text>
              <text x={x + 12} y={y + 42} class="small">
                cluster {n.cluster} · {n.trustDomain ?? "no trust domain"}
              </text>
              <text x={x + 12} y={y + 62} class="small">
                {n.virtualMesh ? `${n.virtualMesh}: ${n.state ?? "PENDING"}${n.trust ? `, trust ${n.trust}` : ""}` : "in no VirtualMesh"}
              </text>
            </g>
          );
        })}
      </svg>
    </figure>
  );
}

/** A mesh's data plane cells: whether ztunnel runs, and its waypoints with what each is for (docs/ambient.md#what-discovery-sees). */
function MeshDataPlane({ mesh }: { mesh: MeshView | undefined }) {
  const view: DataPlaneView = mesh ? describeMeshDataPlane(mesh, [], []) : { waypoints: [], workloads: [] };
  return (
    <>
      <td>{ztunnelText(view.ztunnel)}</td>
      <td>
        {view.waypoints.length === 0
          ? "none"
          : view.waypoints.map((w, i) => (
              <span key={`${w.namespace}/${w.name}`}>
                {i > 0 && ", "}
                {w.namespace}/{w.name} (for {w.for})
              </span>
            ))}
      </td>
    </>
  );
}

/** Meshes per cluster with their data plane, the VirtualMeshes that join them, and what each federates where. */
export function Topology() {
  useTitle("Topology");
  const data = useAsync(async (signal) => {
    const [found, all, clusters] = await Promise.all([meshes(signal), resources(signal), health(signal)]);
    return { ...topology(found, all, placedObjects(clusters)), found: new Map(found.map((m) => [m.metadata.name, m])) };
  }, []);
  return (
    <main id="main">
      <h1>Topology</h1>
      <Loaded value={data} what="meshes and federation">
        {({ nodes, links, found }) =>
          nodes.length === 0 ? (
            <Empty>No mesh is discovered yet: an agent reports its cluster's meshes once it runs.</Empty>
          ) : (
            <>
              <Section title="Federation">
                {links.length === 0 && <p>No destination is federated: no VirtualMesh exports one to another mesh yet.</p>}
                {nodes.some((n) => n.virtualMesh) ? (
                  <FederationGraph nodes={nodes.filter((n) => n.virtualMesh)} links={links} />
                ) : (
                  <p>No mesh is in a VirtualMesh.</p>
                )}
                {nodes.some((n) => !n.virtualMesh) && (
                  <p class="hint">{nodes.filter((n) => !n.virtualMesh).length} mesh(es) in no VirtualMesh are listed below, not drawn.</p>
                )}
              </Section>
              <Section title="Meshes">
                <Table head={["Mesh", "Cluster", "Trust domain", "VirtualMesh", "Trust", "Data plane", "Waypoints"]}>
                  {nodes.map((n) => (
                    <tr key={n.name}>
                      <th scope="row">{n.name}</th>
                      <td>
                        <a href={href(["destinations"], { cluster: n.cluster, mesh: n.name })}>{n.cluster}</a>
                      </td>
                      <td>{n.trustDomain ?? ""}</td>
                      <td>
                        {n.virtualMesh ? (
                          <>
                            <a href={href(["policies", "virtualmeshes", n.virtualMesh])}>{n.virtualMesh}</a> <StateBadge state={n.state ?? "PENDING"} />
                          </>
                        ) : (
                          "none"
                        )}
                      </td>
                      <td>{n.trust ?? "no shared trust"}</td>
                      <MeshDataPlane mesh={found.get(n.name)} />
                    </tr>
                  ))}
                </Table>
              </Section>
              {links.length > 0 && (
                <Section title="Exported destinations">
                  <Table head={["From mesh", "To mesh", "Through gateway", "Destinations"]}>
                    {links.map((l) => (
                      <tr key={`${l.virtualMesh} ${l.from} ${l.to}`}>
                        <th scope="row">{l.from}</th>
                        <td>{l.to}</td>
                        <td>{l.gateways.join(", ")}</td>
                        <td>{l.destinations.join(", ")}</td>
                      </tr>
                    ))}
                  </Table>
                </Section>
              )}
            </>
          )
        }
      </Loaded>
    </main>
  );
}
