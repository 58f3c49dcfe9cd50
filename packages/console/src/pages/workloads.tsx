import { useTitle } from "../ui";
import type { Column } from "../virtual-rows";
import { DiscoveredList, type DiscoveredRow, dataPlaneColumns } from "./discovered-list";

/** A discovered Workload as the API lists it. */
type WorkloadRow = DiscoveredRow & { spec: { kind: string; serviceAccount: string } };

const COLUMNS: Column<WorkloadRow>[] = [
  { title: "Workload", width: "minmax(12rem, 3fr)", cell: (w) => w.metadata.name },
  { title: "Is", width: "minmax(8rem, 2fr)", cell: (w) => `${w.spec.kind} ${w.spec.namespace}/${w.spec.name}` },
  { title: "Cluster", width: "minmax(6rem, 1fr)", cell: (w) => w.spec.cluster },
  { title: "Service account", width: "minmax(6rem, 1fr)", cell: (w) => w.spec.serviceAccount },
  ...dataPlaneColumns<WorkloadRow>(),
];

/**
 * Every workload of the tenant with how its pods join the mesh (sidecar, ambient or none) and the
 * waypoint serving it (docs/ambient.md#what-discovery-sees); searchable and filtered like destinations.
 */
export function Workloads({ query }: { query: URLSearchParams }) {
  useTitle("Workloads");
  return (
    <main id="main">
      <h1>Workloads</h1>
      <DiscoveredList
        page="workloads"
        path="/v1/workloads"
        plural="workloads"
        query={query}
        columns={COLUMNS}
        empty="No workload is discovered yet: an agent reports its cluster's workloads once it runs."
      />
    </main>
  );
}
