import { generatedBy, reasonsOf } from "@meshplane/core/views";
import { useEffect } from "preact/hooks";
import { sourceOf } from "../authored";
import { health, placedObjects, resource } from "../data";
import { COLLECTIONS, type Collection, href } from "../router";
import { Empty, Loaded, Section, StateBadge, useAsync, useTitle, Table } from "../ui";
import { GeneratedObjects } from "./generated";
import { SourceBlock } from "./source";

/**
 * Until translation has caught up with the stored generation the page reads again every second; while
 * it waits on something slower (PENDING: an agent to issue a CA, to apply), every 5 s.
 */
const REFRESH_MS = 1000;
const PENDING_REFRESH_MS = 5000;

/**
 * One policy: its state and why, per destination, mesh and cluster, in the API's words; its generated
 * objects; and, when a cluster authored it, its source (read-only here: its YAML opens to read).
 */
export function Policy({ collection, name }: { collection: Collection; name: string }) {
  const kind = COLLECTIONS[collection];
  useTitle(`${kind} ${name}`);
  const data = useAsync(
    async (signal) => {
      const [{ resource: r, etag }, clusters] = await Promise.all([resource(collection, name, signal), health(signal)]);
      return { r, etag, generated: generatedBy(placedObjects(clusters), { kind, name }) };
    },
    [collection, name],
  );
  const caughtUp = data.status === "ok" && data.data.r.status?.observedGeneration === data.data.r.metadata.generation;
  const pending = data.status === "ok" && (data.data.r.status?.state ?? "PENDING") === "PENDING";
  useEffect(() => {
    if (data.status !== "ok" || (caughtUp && !pending)) return;
    const timer = setTimeout(data.reload, caughtUp ? PENDING_REFRESH_MS : REFRESH_MS);
    return () => clearTimeout(timer);
  }, [data.status, data.data, caughtUp, pending, data.reload]);
  return (
    <main id="main">
      <p class="crumbs">
        <a href={href(["policies"])}>Policies</a> / {kind} /
      </p>
      <h1>{name}</h1>
      <Loaded value={data} what={`${kind} ${name}`}>
        {({ r, etag, generated }) => {
          const status = r.status ?? { state: "PENDING" };
          const source = sourceOf(r);
          const reasons = reasonsOf(r.status);
          const translated = status.observedGeneration === r.metadata.generation;
          return (
            <>
              <p class="headline" aria-live="polite">
                <StateBadge state={status.state} /> generation {r.metadata.generation}
                {translated ? "" : ", being translated…"}{" "}
                <a class="button" href={href(["edit", collection, name])}>
                  {source ? "View YAML" : "Edit"}
                </a>
              </p>
              {source && <SourceBlock collection={collection} kind={kind} name={name} source={source} generation={r.metadata.generation} etag={etag} />}
              {reasons.length > 0 && status.state !== "ACCEPTED" && (
                <div class="why" role="note">
                  <h2>Why it is {status.state}</h2>
                  <ul>
                    {reasons.map((e) => (
                      <li key={e}>{e}</li>
                    ))}
                  </ul>
                </div>
              )}
              <Section title="Destinations">
                {Object.keys(status.destinations ?? {}).length === 0 ? (
                  <Empty>{kind === "VirtualMesh" ? "A VirtualMesh selects meshes, below." : "It selects no destination."}</Empty>
                ) : (
                  <Table head={["Destination", "State", "Acceptance order", "Errors"]}>
                    {Object.entries(status.destinations ?? {}).map(([d, s]) => (
                      <tr key={d}>
                        <th scope="row">
                          <a href={href(["destinations", d])}>{d}</a>
                        </th>
                        <td>
                          <StateBadge state={s.state} />
                        </td>
                        <td>{s.acceptanceOrder ?? ""}</td>
                        <td class="reason">{(s.errors ?? []).join("; ")}</td>
                      </tr>
                    ))}
                  </Table>
                )}
              </Section>
              {status.meshes && (
                <Section title="Meshes">
                  <Table head={["Mesh", "State", "Trust", "Errors"]}>
                    {Object.entries(status.meshes).map(([m, s]) => (
                      <tr key={m}>
                        <th scope="row">{m}</th>
                        <td>
                          <StateBadge state={s.state} />
                        </td>
                        <td>
                          {s.trust
                            ? `${s.trust.state}${s.trust.phase ? ` (${s.trust.phase})` : ""}${s.trust.notAfter ? `, until ${s.trust.notAfter.slice(0, 10)}` : ""}`
                            : "no shared trust"}
                        </td>
                        <td class="reason">{[...(s.errors ?? []), ...(s.trust?.errors ?? [])].join("; ")}</td>
                      </tr>
                    ))}
                  </Table>
                </Section>
              )}
              <Section title="Clusters">
                {Object.keys(status.clusters ?? {}).length === 0 ? (
                  <Empty>No cluster has reported on it yet.</Empty>
                ) : (
                  <Table head={["Cluster", "Generation", "Applied", "Errors"]}>
                    {Object.entries(status.clusters ?? {}).map(([c, s]) => (
                      <tr key={c}>
                        <th scope="row">{c}</th>
                        <td>{s.generation}</td>
                        <td>{s.applied ? "yes" : <span class="bad-text">not yet</span>}</td>
                        <td class="reason">{(s.errors ?? []).join("; ")}</td>
                      </tr>
                    ))}
                  </Table>
                )}
              </Section>
              {status.workloads !== undefined && (
                <Section title="Callers">
                  <p>{status.workloads.length > 0 ? status.workloads.join(", ") : "every workload"}</p>
                </Section>
              )}
              <Section title="Generated objects">
                <GeneratedObjects objects={generated} />
              </Section>
            </>
          );
        }}
      </Loaded>
    </main>
  );
}
