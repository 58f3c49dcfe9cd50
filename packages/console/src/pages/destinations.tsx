import { useMemo } from "preact/hooks";
import { type DestinationView, resources } from "../data";
import { href } from "../router";
import { StateBadge, useAsync, useTitle } from "../ui";
import type { Column } from "../virtual-rows";
import { DiscoveredList, dataPlaneColumns } from "./discovered-list";

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

/**
 * Every destination of the tenant, read a page at a time (the first page shows at once), searchable
 * by name and filtered by cluster, namespace and mesh, with its data plane and waypoint and the worst
 * state of the policies on it. Filters live in the route, so a filtered list can be linked to.
 */
export function Destinations({ query }: { query: URLSearchParams }) {
  useTitle("Destinations");
  const policies = useAsync((signal) => resources(signal), []);
  const states = useMemo(
    () => (policies.status === "ok" ? policyStates(policies.data) : new Map<string, { count: number; worst: string }>()),
    [policies.status, policies.data],
  );

  const columns: Column<DestinationView>[] = [
    {
      title: "Destination",
      width: "minmax(12rem, 3fr)",
      cell: (d) => <a href={href(["destinations", d.metadata.name], { cluster: d.spec.cluster })}>{d.metadata.name}</a>,
    },
    { title: "Service", width: "minmax(8rem, 2fr)", cell: (d) => `${d.spec.namespace}/${d.spec.name}` },
    { title: "Cluster", width: "minmax(6rem, 1fr)", cell: (d) => d.spec.cluster },
    { title: "Endpoints", width: "6rem", cell: (d) => String(d.spec.endpoints.length) },
    ...dataPlaneColumns<DestinationView>(),
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
      <DiscoveredList
        page="destinations"
        path="/v1/destinations"
        plural="destinations"
        query={query}
        columns={columns}
        empty="No destination is discovered yet: an agent reports its cluster's services once it runs."
      />
    </main>
  );
}
