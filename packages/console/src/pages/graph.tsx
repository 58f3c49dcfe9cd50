import { useMemo } from "preact/hooks";
import { GRAPH_WINDOWS, graph } from "../data";
import { type EdgeSort, type GraphFilter, filterGraph, filterOptions, layoutGraph } from "../graph-model";
import { href, navigate } from "../router";
import { Empty, Loaded, Section, useAsync, useTitle, useWhileVisible } from "../ui";
import { Legend } from "./graph-parts";
import { GraphPicture } from "./graph-picture";
import { GraphTable } from "./graph-table";

/** The graph is read again this often while its page is visible. */
const REFRESH_MS = 30_000;
const FILTERS: readonly [keyof GraphFilter, string][] = [
  ["cluster", "Cluster"],
  ["namespace", "Namespace"],
  ["mesh", "Mesh"],
  ["virtualMesh", "VirtualMesh"],
];
const SORTS: readonly EdgeSort[] = ["rate", "errors", "p99"];

/**
 * Who calls whom across every cluster, with each edge's rate, error ratio and p99 over a window
 * (`GET /v1/graph`): a picture (clusters as groups, edges coloured by error ratio, width by rate,
 * dashed across clusters) and the same edges as a table. Window, filters and sort live in the route,
 * so a view can be linked; a destination clicks through to its page.
 */
export function Graph({ query }: { query: URLSearchParams }) {
  useTitle("Graph");
  const window = GRAPH_WINDOWS.find((w) => w === query.get("window")) ?? "15m";
  const sort = SORTS.find((s) => s === query.get("sort")) ?? "rate";
  const filter: GraphFilter = Object.fromEntries(FILTERS.map(([key]) => [key, query.get(key) ?? ""]).filter(([, v]) => v));
  const data = useAsync(async (signal) => ({ view: await graph(window, signal), at: new Date() }), [window]);
  useWhileVisible(data.reload, REFRESH_MS);
  const set = (changes: Record<string, string | undefined>) => navigate(href(["graph"], { ...Object.fromEntries(query), ...changes }), true);
  const filterKey = JSON.stringify(filter);
  // oxlint-disable-next-line react-hooks/exhaustive-deps -- the filter is a new object each render; its JSON says when it changed
  const shown = useMemo(() => (data.status === "ok" ? filterGraph(data.data.view, filter) : undefined), [data.status, data.data, filterKey]);
  const layout = useMemo(() => (shown ? layoutGraph(shown.nodes, shown.edges) : undefined), [shown]);
  const options = useMemo(() => filterOptions(data.status === "ok" ? data.data.view.nodes : []), [data.status, data.data]);
  return (
    <main id="main">
      <h1>Graph</h1>
      <div class="filters">
        <label>
          Window
          <select value={window} onChange={(e) => set({ window: (e.target as HTMLSelectElement).value })}>
            {GRAPH_WINDOWS.map((w) => (
              <option key={w} value={w}>
                last {w}
              </option>
            ))}
          </select>
        </label>
        {FILTERS.map(([key, label]) => (
          <label key={key}>
            {label}
            <select value={filter[key] ?? ""} onChange={(e) => set({ [key]: (e.target as HTMLSelectElement).value })}>
              <option value="">all</option>
              {options[key].map((v) => (
                <option key={v} value={v}>
                  {v}
                </option>
              ))}
            </select>
          </label>
        ))}
        <button type="button" onClick={data.reload}>
          Refresh now
        </button>
      </div>
      <Loaded value={data} what="the graph">
        {({ at }) =>
          !shown || !layout || shown.edges.length === 0 ? (
            <Empty>
              No traffic was reported in the last {window}
              {Object.keys(filter).length > 0 ? " that matches these filters" : ""}. Each cluster's agent sends its golden signals every 5 minutes once its
              chart names the cluster's Prometheus.
            </Empty>
          ) : (
            <>
              <p class="hint" aria-live="off">
                {shown.edges.length} edge{shown.edges.length === 1 ? "" : "s"} between {shown.nodes.length} nodes over the last {window}, as of{" "}
                {at.toLocaleTimeString("en-GB")}; read again every {REFRESH_MS / 1000} s while this page is visible.
              </p>
              <Legend />
              <GraphPicture layout={layout} />
              <Section title="Edges">
                <GraphTable nodes={shown.nodes} edges={shown.edges} sort={sort} onSort={(by) => set({ sort: by })} />
              </Section>
            </>
          )
        }
      </Loaded>
    </main>
  );
}
