import { STALE_AFTER_S, ago, certificateDays, problemsOf, reasonsOf, secondsSince } from "@meshplane/core/views";
import { useEffect } from "preact/hooks";
import { health, impacts, resources } from "../data";
import { collectionOf, href } from "../router";
import { Empty, Loaded, Section, StateBadge, useAsync, useTitle, Table } from "../ui";

const STATES = ["ACCEPTED", "PENDING", "INVALID", "FAILED"] as const;
const KINDS = ["VirtualMesh", "TrafficPolicy", "AccessPolicy"] as const;
const CERTIFICATE_WARN_DAYS = 30;
/** The overview reads everything again this often while it is open (an on-call screen). */
const REFRESH_MS = 30_000;

interface Problem {
  /** Where it is: a cluster or a resource. */
  subject: string;
  link: string;
  text: string;
  /** When it was last known to be so (newest first). */
  at: string;
}

export function Overview() {
  useTitle("Overview");
  const data = useAsync(async (signal) => {
    // Change impacts are golden signals' word: when they cannot be read, the rest of the overview still shows, and says so.
    const [clusters, all, hurt] = await Promise.all([
      health(signal, { objects: false }),
      resources(signal),
      impacts(signal).then(
        (list) => ({ items: list.impacts, error: undefined }),
        (error: unknown) => ({ items: [], error: error instanceof Error ? error.message : String(error) }),
      ),
    ]);
    return { clusters, all, hurt, now: new Date() };
  }, []);
  useEffect(() => {
    const timer = setInterval(data.reload, REFRESH_MS);
    return () => clearInterval(timer);
  }, [data.reload]);
  return (
    <main id="main">
      <h1>Overview</h1>
      <p class="headline hint" aria-live="off">
        {data.status === "ok" ? `As of ${data.data.now.toLocaleTimeString("en-GB")}; read again every ${REFRESH_MS / 1000} s.` : ""}
        <button type="button" onClick={data.reload}>
          Refresh now
        </button>
      </p>
      <Loaded value={data} what="clusters and policies">
        {({ clusters, all, hurt, now }) => {
          const wrong = new Map(
            clusters.map((h) => [h.cluster.name, problemsOf(h, now, { staleAfterS: STALE_AFTER_S, certificateWarnDays: CERTIFICATE_WARN_DAYS })]),
          );
          const problems: Problem[] = [
            ...clusters.flatMap((h) =>
              (wrong.get(h.cluster.name) ?? []).map((text) => ({
                subject: `cluster ${h.cluster.name}`,
                link: href(["destinations"], { cluster: h.cluster.name }),
                text,
                at: h.snapshot.lastSeenAt ?? h.cluster.createdAt,
              })),
            ),
            ...all
              .filter((r) => r.status?.state === "INVALID" || r.status?.state === "FAILED")
              .flatMap((r) =>
                reasonsOf(r.status).map((text) => ({
                  subject: `${r.kind} ${r.metadata.name}`,
                  link: href(["policies", collectionOf(r.kind) ?? "", r.metadata.name]),
                  text,
                  at: r.metadata.updatedAt ?? "",
                })),
              ),
            // A destination a change hurt: the message names the change; the link goes to the destination's charts.
            ...hurt.items.map((i) => ({
              subject: `destination ${i.destination}`,
              link: href(["destinations", i.destination]),
              text: i.message,
              at: i.change.at,
            })),
          ].sort((a, b) => b.at.localeCompare(a.at));
          const count = (h: (typeof clusters)[number]) => wrong.get(h.cluster.name)?.length ?? 0;
          const ranked = [...clusters].sort((a, b) => count(b) - count(a) || a.cluster.name.localeCompare(b.cluster.name));
          return (
            <>
              <Section title="Problems, newest first">
                {hurt.error !== undefined && <p class="hint">Change impacts could not be read: {hurt.error}</p>}
                {problems.length === 0 ? (
                  <Empty>Nothing is wrong: every cluster is in sync and every policy is accepted or pending.</Empty>
                ) : (
                  <ul class="problems">
                    {problems.slice(0, 50).map((p, i) => (
                      <li key={i}>
                        <a href={p.link}>{p.subject}</a>: {p.text}
                      </li>
                    ))}
                    {problems.length > 50 && <li>and {problems.length - 50} more</li>}
                  </ul>
                )}
              </Section>
              <Section title="Clusters">
                {clusters.length === 0 ? (
                  <Empty>
                    No cluster is registered yet. Register one with <code>meshplane cluster register NAME --install</code>.
                  </Empty>
                ) : (
                  <Table head={["Cluster", "Agent", "Last seen", "Applied / latest", "In sync", "Apply failures", "Certificates"]}>
                    {ranked.map(({ cluster, snapshot }) => {
                      const seen = secondsSince(snapshot.lastSeenAt ?? cluster.lastSeenAt, now);
                      const days = certificateDays(cluster, now);
                      const stale = seen === undefined || seen > STALE_AFTER_S;
                      return (
                        <tr key={cluster.name}>
                          <th scope="row">
                            <a href={href(["destinations"], { cluster: cluster.name })}>{cluster.name}</a>
                          </th>
                          <td>{cluster.state}</td>
                          <td class={stale ? "bad-text" : ""}>{ago(seen)}</td>
                          <td>
                            {snapshot.appliedGeneration} / {snapshot.generation}
                          </td>
                          <td>{snapshot.inSync ? "yes" : <span class="bad-text">no</span>}</td>
                          <td class={snapshot.failures.length > 0 ? "bad-text" : ""}>{snapshot.failures.length}</td>
                          <td>{days === undefined ? "none issued" : <span class={days < CERTIFICATE_WARN_DAYS ? "bad-text" : ""}>{days} days left</span>}</td>
                        </tr>
                      );
                    })}
                  </Table>
                )}
              </Section>
              <Section title="Policies by state">
                <Table head={["Kind", ...STATES.map((s) => <StateBadge key={s} state={s} />)]}>
                  {KINDS.map((kind) => (
                    <tr key={kind}>
                      <th scope="row">{kind}</th>
                      {STATES.map((state) => {
                        const n = all.filter((r) => r.kind === kind && (r.status?.state ?? "PENDING") === state).length;
                        return <td key={state}>{n === 0 ? "0" : <a href={href(["policies"], { kind, state })}>{n}</a>}</td>;
                      })}
                    </tr>
                  ))}
                </Table>
              </Section>
            </>
          );
        }}
      </Loaded>
    </main>
  );
}
