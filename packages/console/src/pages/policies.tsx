import { reasonsOf } from "@meshplane/core/views";
import { authoringClusters, matchesSourceFilter, sourceLabel, sourceOf } from "../authored";
import { resources } from "../data";
import { collectionOf, href, navigate } from "../router";
import { Empty, Loaded, StateBadge, useAsync, useTitle, Table } from "../ui";

const KINDS = ["VirtualMesh", "TrafficPolicy", "AccessPolicy"];
const STATES = ["ACCEPTED", "PENDING", "INVALID", "FAILED"];

/**
 * Every VirtualMesh, TrafficPolicy and AccessPolicy with its state and first reason, and, for one
 * authored in a cluster, where it came from (docs/gitops.md#names-and-sources); filters in the route.
 */
export function Policies({ query }: { query: URLSearchParams }) {
  useTitle("Policies");
  const data = useAsync((signal) => resources(signal), []);
  const filters = { kind: query.get("kind") ?? "", state: query.get("state") ?? "", source: query.get("source") ?? "", q: query.get("q") ?? "" };
  const set = (key: string, value: string) => navigate(href(["policies"], { ...filters, [key]: value }), true);
  return (
    <main id="main">
      <h1>Policies</h1>
      <p>
        <a class="button" href={href(["edit", "trafficpolicies"])}>
          New policy
        </a>
      </p>
      <form class="filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <label>
          Search <input type="search" value={filters.q} onInput={(e) => set("q", (e.currentTarget as HTMLInputElement).value)} />
        </label>
        <label>
          Kind{" "}
          <select value={filters.kind} onChange={(e) => set("kind", (e.currentTarget as HTMLSelectElement).value)}>
            <option value="">all</option>
            {KINDS.map((k) => (
              <option key={k}>{k}</option>
            ))}
          </select>
        </label>
        <label>
          State{" "}
          <select value={filters.state} onChange={(e) => set("state", (e.currentTarget as HTMLSelectElement).value)}>
            <option value="">all</option>
            {STATES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <label>
          Source{" "}
          <select value={filters.source} onChange={(e) => set("source", (e.currentTarget as HTMLSelectElement).value)}>
            <option value="">all</option>
            <option value="api">the API</option>
            {sourceChoices(data.status === "ok" ? data.data : [], filters.source).map((c) => (
              <option key={c} value={`cluster:${c}`}>
                cluster {c}
              </option>
            ))}
          </select>
        </label>
      </form>
      <Loaded value={data} what="policies">
        {(all) => {
          const shown = all
            .filter(
              (r) =>
                (!filters.kind || r.kind === filters.kind) &&
                (!filters.state || (r.status?.state ?? "PENDING") === filters.state) &&
                matchesSourceFilter(r, filters.source) &&
                (!filters.q || r.metadata.name.includes(filters.q.toLowerCase())),
            )
            .sort((a, b) => KINDS.indexOf(a.kind) - KINDS.indexOf(b.kind) || a.metadata.name.localeCompare(b.metadata.name));
          if (all.length === 0)
            return (
              <Empty>
                No policy yet. Write one with “New policy”, or apply YAML with <code>meshplane apply -f</code>.
              </Empty>
            );
          if (shown.length === 0) return <Empty>No policy matches these filters.</Empty>;
          return (
            <Table head={["Kind", "Name", "Source", "State", "Destinations", "Why not accepted"]}>
              {shown.map((r) => {
                const reasons = reasonsOf(r.status);
                const source = sourceOf(r);
                return (
                  <tr key={`${r.kind}/${r.metadata.name}`}>
                    <td>{r.kind}</td>
                    <th scope="row">
                      <a href={href(["policies", collectionOf(r.kind) ?? "", r.metadata.name])}>{r.metadata.name}</a>
                    </th>
                    <td>{source ? <span class="badge source">{sourceLabel(source)}</span> : <span class="muted">API</span>}</td>
                    <td>
                      <StateBadge state={r.status?.state ?? "PENDING"} />
                    </td>
                    <td>{Object.keys(r.status?.destinations ?? {}).length}</td>
                    <td class="reason">
                      {r.status?.state === "ACCEPTED" ? "" : (reasons[0] ?? "")}
                      {reasons.length > 1 ? ` (and ${reasons.length - 1} more)` : ""}
                    </td>
                  </tr>
                );
              })}
            </Table>
          );
        }}
      </Loaded>
    </main>
  );
}

/** The authoring clusters to filter by: those in the list, and the one in the route even before the list is read. */
function sourceChoices(all: Parameters<typeof authoringClusters>[0], chosen: string): string[] {
  const clusters = authoringClusters(all);
  const routed = chosen.startsWith("cluster:") ? chosen.slice("cluster:".length) : undefined;
  return routed === undefined || clusters.includes(routed) ? clusters : [...clusters, routed].sort();
}
