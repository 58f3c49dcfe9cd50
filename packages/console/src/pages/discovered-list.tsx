import { dataPlaneOf, waypointOf } from "@meshplane/core/views";
import { useMemo, useState } from "preact/hooks";
import { listAll } from "../api";
import { href, navigate } from "../router";
import { Empty, ErrorState, Loading, useAsync } from "../ui";
import { type Column, VirtualRows } from "../virtual-rows";

/** What every discovered Workload and Destination has, as the API lists it. */
export interface DiscoveredRow {
  metadata: { name: string };
  spec: { name: string; namespace: string; cluster: string; mesh?: string; dataPlane?: string; waypoint?: { name: string; namespace: string } };
}

/** The data plane and the waypoint serving each row (docs/ambient.md#what-discovery-sees). */
export function dataPlaneColumns<T extends DiscoveredRow>(): Column<T>[] {
  return [
    { title: "Data plane", width: "6.5rem", cell: (r) => dataPlaneOf(r.spec) },
    { title: "Waypoint", width: "minmax(6rem, 1fr)", cell: (r) => waypointOf(r.spec) || "none" },
  ];
}

const distinct = (rows: readonly DiscoveredRow[], pick: (d: DiscoveredRow) => string | undefined) =>
  [...new Set(rows.map(pick).filter((v): v is string => v !== undefined))].sort();

const FILTERS = ["cluster", "namespace", "mesh"] as const;

/**
 * Every discovered object at `path` (`/v1/workloads`, `/v1/destinations`), read a page at a time (the
 * first page shows at once), searchable by name and filtered by cluster, namespace and mesh. Filters
 * live in the route (`page`), so a filtered list can be linked to.
 */
export function DiscoveredList<T extends DiscoveredRow>({
  page,
  path,
  plural,
  query,
  columns,
  empty,
}: {
  page: string;
  path: string;
  /** What the rows are, in words: "destinations". */
  plural: string;
  query: URLSearchParams;
  columns: Column<T>[];
  /** What the list says with nothing discovered yet. */
  empty: string;
}) {
  const [loaded, setLoaded] = useState<{ rows: T[]; done: boolean }>({ rows: [], done: false });
  const list = useAsync((signal) => listAll<T>(path, { pageSize: 1000, signal, onPage: (rows, done) => setLoaded({ rows: [...rows], done }) }), [path]);
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
  const set = (key: string, value: string) => navigate(href([page], { q, ...filters, [key]: value }), true);
  const noun = plural.slice(0, -1);
  const title = plural[0]?.toUpperCase() + plural.slice(1);

  return (
    <>
      <form class="filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <label>
          Search{" "}
          <input
            type="search"
            value={q}
            placeholder={`name or namespace/${page === "workloads" ? "workload" : "service"}`}
            onInput={(e) => set("q", (e.currentTarget as HTMLInputElement).value)}
          />
        </label>
        {FILTERS.map((key) => (
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
      {list.status !== "error" && rows.length === 0 && (loaded.done ? <Empty>{empty}</Empty> : <Loading what={plural} />)}
      {rows.length > 0 && (
        <>
          <p class="count" aria-live="polite">
            {shown.length.toLocaleString("en")} of {rows.length.toLocaleString("en")} {plural}
            {loaded.done ? "" : " (still loading)"}
          </p>
          {shown.length === 0 ? (
            <Empty>No {noun} matches these filters.</Empty>
          ) : (
            <VirtualRows rows={shown} columns={columns} rowKey={(d) => `${d.spec.cluster}/${d.metadata.name}`} label={title} />
          )}
        </>
      )}
    </>
  );
}
