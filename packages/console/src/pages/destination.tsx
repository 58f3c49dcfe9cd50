import { dataPlaneFacts, describeDestination } from "@meshplane/core/views";
import { listAll } from "../api";
import { type DestinationView, health, placedObjects, resources } from "../data";
import { collectionOf, href } from "../router";
import { Empty, Loaded, Section, StateBadge, useAsync, useTitle, Errors } from "../ui";
import { DestinationSignals } from "./destination-signals";
import { GeneratedObjects } from "./generated";

/** Its data plane, and the waypoint serving it when it has one or is ambient (docs/ambient.md#what-discovery-sees). */
function DataPlaneFacts({ spec }: { spec: DestinationView["spec"] }) {
  const facts = dataPlaneFacts(spec);
  return (
    <>
      <dt>Data plane</dt>
      <dd>{facts.dataPlane}</dd>
      {facts.waypoint !== undefined && (
        <>
          <dt>Waypoint</dt>
          <dd>{facts.waypoint}</dd>
        </>
      )}
    </>
  );
}

/**
 * One destination: its data plane, its golden signals over `window` with the changes that reached it, the policies that apply in acceptance order (the fields each sets, conflicts),
 * who may call it, where it is federated, and its generated objects per cluster.
 */
export function Destination({ name, cluster, window = "1h" }: { name: string; cluster?: string; window?: string }) {
  useTitle(name);
  const data = useAsync(
    async (signal) => {
      const query = cluster ? `?cluster=${encodeURIComponent(cluster)}` : "";
      const [found, all, clusters] = await Promise.all([
        listAll<DestinationView>(`/v1/destinations${query}`, { pageSize: 1000, signal }),
        resources(signal),
        health(signal),
      ]);
      const destination = found.find((d) => d.metadata.name === name);
      return destination ? { destination, view: describeDestination(destination, all, placedObjects(clusters)) } : undefined;
    },
    [name, cluster],
  );
  return (
    <main id="main">
      <p class="crumbs">
        <a href={href(["destinations"])}>Destinations</a> /
      </p>
      <h1>{name}</h1>
      <Loaded value={data} what="the destination">
        {(found) => {
          if (!found)
            return (
              <Empty>
                No destination named {name}
                {cluster ? ` in cluster ${cluster}` : ""}. It may have gone from its cluster since the list was read.
              </Empty>
            );
          const { destination: d, view } = found;
          return (
            <>
              <dl class="facts">
                <dt>Service</dt>
                <dd>
                  {d.spec.namespace}/{d.spec.name} in cluster {d.spec.cluster}, mesh {d.spec.mesh ?? "none"}
                </dd>
                <dt>Ports</dt>
                <dd>{d.spec.ports.map((p) => `${p.port}/${p.protocol}${p.name ? ` (${p.name})` : ""}`).join(", ") || "none"}</dd>
                <dt>Endpoints</dt>
                <dd>
                  {d.spec.endpoints.length}, backed by {d.spec.workloads.join(", ") || "no workload"}
                </dd>
                <dt>Subsets</dt>
                <dd>
                  {Object.entries(d.spec.subsets)
                    .map(([k, v]) => `${k}: ${v.join(" | ")}`)
                    .join(", ") || "none"}
                </dd>
                <DataPlaneFacts spec={d.spec} />
              </dl>
              <DestinationSignals name={name} {...(cluster ? { cluster } : {})} window={window} />
              <Section title="Policies, in acceptance order">
                {view.policies.length === 0 ? (
                  <Empty>No TrafficPolicy selects it.</Empty>
                ) : (
                  <ol class="policies">
                    {view.policies.map((p) => (
                      <li key={p.name} value={p.acceptanceOrder}>
                        <a href={href(["policies", collectionOf(p.kind) ?? "", p.name])}>
                          {p.kind} {p.name}
                        </a>{" "}
                        <StateBadge state={p.state} />{" "}
                        {p.fields.length > 0 ? (
                          <>
                            sets{" "}
                            {p.fields.map((f) => (
                              <code key={f}>{f} </code>
                            ))}
                          </>
                        ) : (
                          "sets nothing"
                        )}
                        <Errors errors={p.errors} />
                      </li>
                    ))}
                  </ol>
                )}
              </Section>
              <Section title="Who may call it">
                {view.enforcedBy.length === 0 ? (
                  <p>Every caller: no VirtualMesh with globalAccessPolicy ENABLED includes its mesh.</p>
                ) : (
                  <>
                    <p>Only what AccessPolicies allow (globalAccessPolicy ENABLED by VirtualMesh {view.enforcedBy.join(", ")}).</p>
                    {view.access.length === 0 ? (
                      <p class="bad-text">No AccessPolicy selects it: nobody may call it.</p>
                    ) : (
                      <ul>
                        {view.access.map((a) => (
                          <li key={a.name}>
                            <a href={href(["policies", "accesspolicies", a.name])}>AccessPolicy {a.name}</a> <StateBadge state={a.state} />: from{" "}
                            <code>{JSON.stringify(a.sources ?? "any source")}</code>
                            {Object.entries(a.limits).map(([k, v]) => (
                              <span key={k}>
                                ; {k} <code>{JSON.stringify(v)}</code>
                              </span>
                            ))}
                            <Errors errors={a.errors} />
                          </li>
                        ))}
                      </ul>
                    )}
                  </>
                )}
              </Section>
              <Section title="Federation">
                {view.virtualMeshes.length === 0 ? (
                  <p>Its mesh is in no VirtualMesh.</p>
                ) : (
                  <p>
                    {view.virtualMeshes.map((v) => (
                      <span key={v.name}>
                        <a href={href(["policies", "virtualmeshes", v.name])}>VirtualMesh {v.name}</a> <StateBadge state={v.state} />{" "}
                      </span>
                    ))}
                  </p>
                )}
                {view.federation.length === 0 ? (
                  <p>Not federated to any other cluster.</p>
                ) : (
                  <ul>
                    {view.federation.map((f) => (
                      <li key={f.cluster}>
                        from <strong>{f.cluster}</strong> as <code>{f.host}</code>, through the east-west gateway of {d.spec.cluster}
                        {f.gateways.length > 0 && <> ({f.gateways.join(", ")})</>}
                      </li>
                    ))}
                  </ul>
                )}
              </Section>
              <Section title="Generated objects">
                <p class="hint">The service's own; a policy's objects are on the policy's page.</p>
                <GeneratedObjects objects={view.generated} />
              </Section>
            </>
          );
        }}
      </Loaded>
    </main>
  );
}
