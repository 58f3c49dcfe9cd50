import { useMemo, useState } from "preact/hooks";
import { listAll } from "../api";
import { type DestinationView, resources } from "../data";
import { href, navigate } from "../router";
import { Empty, ErrorState, Loading, StateBadge, useAsync, useTitle } from "../ui";
import { type Column, VirtualRows } from "../virtual-rows";

/** The worst state among the policies that apply to each destination, and how many there are. */
function policyStates(all: Awaited<ReturnType<typeof resources>>): Map<string, { count: number; worst: string }> {
  const rank: Record<string, number> = { ACCEPTED: 0, PENDING: 1, INVALID: 2, FAILED: 3 };
  const out = new Map<string, { count: number; worst: string }>();
  for (const r of all) {
    for (const [name, s] of Object.entries(r.status?.destinations ?? {})) {
      const seen = out.get(name) ?? { count: 0, worst: "ACCEPTED" };
      seen.count++;
      if ((rank[s.state] ?? 1) > (rank[seen.worst] ?? 0)) seen.worst = s.state;
      out.set(name, seen);
    }
  }
  return out;
}

const distinct = (rows: readonly DestinationView[], pick: (d: DestinationView) => string | undefined) =>
  [...new Set(rows.map(pick).filter((v): v is string => v !== undefined))].sort();

/**
 * Every destination of the tenant, read a page at a time (the first page shows at once), searchable
 * by name and filtered by cluster, namespace and mesh. Filters live in the route, so a filtered list
 * can be linked to.
 */
export function Destinations({ query }: { query: URLSearchParams }) {
  useTitle("Destinations");
  const [loaded, setLoaded] = useState<{ rows: DestinationView[]; done: boolean }>({ rows: [], done: false });
  const list = useAsync(
    (signal) =>
      listAll<DestinationView>("/v1/destinations", {
        pageSize: 1000,
        signal,
        onPage: (rows, done) => setLoaded({ rows: [...rows], done }),
      }),
    [],
  );
  const policies = useAsync((signal) => resources(signal), []);
  const states = useMemo(
    () => (policies.status === "ok" ? policyStates(policies.data) : new Map<string, { count: number; worst: string }>()),
    [policies.status, policies.data],
  );
  const q = query.get("q") ?? "";
  const filters = { cluster: query.get("cluster") ?? "", namespace: query.get("namespace") ?? "", mesh: query.get("mesh") ?? "" };
  const rows = loaded.rows;
  const shown = useMemo(() => {
    const needle = q.trim().toLowerCase();
    return rows.filter(
      (d) =>
        (!needle || d.metadata.name.includes(needle) || `${d.spec.namespace}/${d.spec.name}`.includes(needle)) &&
        (!filters.cluster || d.spec.cluster === filters.cluster) &&
        (!filters.namespace || d.spec.namespace === filters.namespace) &&
        (!filters.mesh || d.spec.mesh === filters.mesh),
    );
  }, [rows, q, filters.cluster, filters.namespace, filters.mesh]);
  const set = (key: string, value: string) => navigate(href(["destinations"], { q, ...filters, [key]: value }), true);

  const columns: Column<DestinationView>[] = [
    {
      title: "Destination",
      width: "minmax(12rem, 3fr)",
      cell: (d) => <a href={href(["destinations", d.metadata.name], { cluster: d.spec.cluster })}>{d.metadata.name}</a>,
    },
    { title: "Service", width: "minmax(8rem, 2fr)", cell: (d) => `${d.spec.namespace}/${d.spec.name}` },
    { title: "Cluster", width: "minmax(6rem, 1fr)", cell: (d) => d.spec.cluster },
    { title: "Endpoints", width: "6rem", cell: (d) => String(d.spec.endpoints.length) },
    {
      title: "Policies",
      width: "9rem",
      cell: (d) => {
        const s = states.get(d.metadata.name);
        return s ? (
          <>
            {s.count} <StateBadge state={s.worst} />
          </>
        ) : (
          "none"
        );
      },
    },
  ];

  return (
    <main id="main">
      <h1>Destinations</h1>
      <form class="filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <label>
          Search{" "}
          <input type="search" value={q} placeholder="name or namespace/service" onInput={(e) => set("q", (e.currentTarget as HTMLInputElement).value)} />
        </label>
        {(["cluster", "namespace", "mesh"] as const).map((key) => (
          <label key={key}>
            {key[0]?.toUpperCase() + key.slice(1)}{" "}
            <select value={filters[key]} onChange={(e) => set(key, (e.currentTarget as HTMLSelectElement).value)}>
              <option value="">all</option>
              {distinct(rows, (d) => (key === "mesh" ? d.spec.mesh : d.spec[key])).map((v) => (
                <option key={v} value={v}>
                  {v}
                </option>
              ))}
            </select>
          </label>
        ))}
      </form>
      {list.status === "error" && <ErrorState error={list.error} retry={list.reload} />}
      {list.status !== "error" &&
        rows.length === 0 &&
        (loaded.done ? (
          <Empty>No destination is discovered yet: an agent reports its cluster's services once it runs.</Empty>
        ) : (
          <Loading what="destinations" />
        ))}
      {rows.length > 0 && (
        <>
          <p class="count" aria-live="polite">
            {shown.length.toLocaleString("en")} of {rows.length.toLocaleString("en")} destinations{loaded.done ? "" : " (still loading)"}
          </p>
          {shown.length === 0 ? (
            <Empty>No destination matches these filters.</Empty>
          ) : (
            <VirtualRows rows={shown} columns={columns} rowKey={(d) => `${d.spec.cluster}/${d.metadata.name}`} label="Destinations" />
          )}
        </>
      )}
    </main>
  );
}
