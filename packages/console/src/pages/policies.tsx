import { reasonsOf } from "@meshplane/core/views";
import { resources } from "../data";
import { collectionOf, href, navigate } from "../router";
import { Empty, Loaded, StateBadge, useAsync, useTitle, Table } from "../ui";

const KINDS = ["VirtualMesh", "TrafficPolicy", "AccessPolicy"];
const STATES = ["ACCEPTED", "PENDING", "INVALID", "FAILED"];

/** Every VirtualMesh, TrafficPolicy and AccessPolicy with its state and first reason; filters in the route. */
export function Policies({ query }: { query: URLSearchParams }) {
  useTitle("Policies");
  const data = useAsync((signal) => resources(signal), []);
  const filters = { kind: query.get("kind") ?? "", state: query.get("state") ?? "", q: query.get("q") ?? "" };
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
      </form>
      <Loaded value={data} what="policies">
        {(all) => {
          const shown = all
            .filter(
              (r) =>
                (!filters.kind || r.kind === filters.kind) &&
                (!filters.state || (r.status?.state ?? "PENDING") === filters.state) &&
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
            <Table head={["Kind", "Name", "State", "Destinations", "Why not accepted"]}>
              {shown.map((r) => {
                const reasons = reasonsOf(r.status);
                return (
                  <tr key={`${r.kind}/${r.metadata.name}`}>
                    <td>{r.kind}</td>
                    <th scope="row">
                      <a href={href(["policies", collectionOf(r.kind) ?? "", r.metadata.name])}>{r.metadata.name}</a>
                    </th>
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
