/** A column of a table: `wide` ones only with `-o wide`, `whenSet` ones only when a row has a value. */
export interface Column {
  title: string;
  value: (item: Item) => string;
  wide?: boolean;
  whenSet?: boolean;
}

/** Every kind the CLI reads or writes: the names users type (kubectl-style) and where the API keeps it. */
export interface Kind {
  kind: string;
  plural: string;
  short: string[];
  path: string;
  /** Written with apply/delete (user resources); the others are read-only or have their own commands. */
  user: boolean;
  /** The columns of a table, after NAME. */
  columns: Column[];
}

export type Item = Record<string, unknown> & { metadata?: { name?: string; labels?: Record<string, string>; [k: string]: unknown } };

const get = (item: unknown, path: string): unknown =>
  path.split(".").reduce<unknown>((v, k) => (typeof v === "object" && v !== null ? (v as Record<string, unknown>)[k] : undefined), item);
const text = (value: unknown): string => (value === undefined || value === null ? "" : typeof value === "string" ? value : JSON.stringify(value));

/** A user resource's state: its own, or ACCEPTED/INVALID/… counted over clusters and destinations. */
export function stateOf(item: unknown): string {
  const state = get(item, "status.state");
  return text(state) || "PENDING";
}

const labels = {
  title: "LABELS",
  wide: true,
  value: (i: Item) =>
    Object.entries(i.metadata?.labels ?? {})
      .map(([k, v]) => `${k}=${v}`)
      .join(","),
};
/** Where a resource authored in a cluster came from (docs/gitops.md#names-and-sources): `east shop/cart-retries`; shown when a row has one. */
const source = {
  title: "SOURCE",
  whenSet: true,
  value: (i: Item) =>
    get(i, "metadata.source") === undefined
      ? ""
      : `${text(get(i, "metadata.source.cluster"))} ${text(get(i, "metadata.source.namespace"))}/${text(get(i, "metadata.source.name"))}`,
};
const cluster = { title: "CLUSTER", value: (i: Item) => text(get(i, "metadata.cluster")) };
const namespace = { title: "NAMESPACE", value: (i: Item) => text(get(i, "spec.namespace")) };
const age = { title: "GENERATION", value: (i: Item) => text(get(i, "metadata.generation")) };
/**
 * A workload's or destination's data plane (`sidecar` when an agent that predates ambient names none),
 * and the waypoint serving it (docs/ambient.md#what-discovery-sees): core's dataPlaneOf and waypointOf,
 * said here again so that this module, which completion loads, imports nothing of core.
 */
const dataPlane = { title: "DATA PLANE", value: (i: Item) => text(get(i, "spec.dataPlane")) || "sidecar" };
/** A cluster's grant (docs/gitops.md#grants) in words: `TrafficPolicy, AccessPolicy over east, west (default)`. */
export function grantText(a: { kinds: string[]; clusters: string[]; default?: true } | undefined): string {
  if (a === undefined) return "-";
  const over = a.clusters[0] === "*" ? "every cluster" : a.clusters.join(", ");
  return `${a.kinds.length === 0 ? "nothing (authoring off)" : `${a.kinds.join(", ")} over ${over}`}${a.default ? " (default)" : ""}`;
}

const waypoint = {
  title: "WAYPOINT",
  whenSet: true,
  value: (i: Item) => (get(i, "spec.waypoint") === undefined ? "" : `${text(get(i, "spec.waypoint.namespace"))}/${text(get(i, "spec.waypoint.name"))}`),
};

export const KINDS: Kind[] = [
  {
    kind: "VirtualMesh",
    plural: "virtualmeshes",
    short: ["vm", "virtualmesh"],
    path: "/v1/virtualmeshes",
    user: true,
    columns: [
      { title: "STATE", value: stateOf },
      { title: "MESHES", value: (i) => text((get(i, "spec.meshes") as unknown[] | undefined)?.length ?? 0) },
      age,
      source,
      labels,
    ],
  },
  {
    kind: "TrafficPolicy",
    plural: "trafficpolicies",
    short: ["tp", "trafficpolicy"],
    path: "/v1/trafficpolicies",
    user: true,
    columns: [{ title: "STATE", value: stateOf }, age, source, labels],
  },
  {
    kind: "AccessPolicy",
    plural: "accesspolicies",
    short: ["ap", "accesspolicy"],
    path: "/v1/accesspolicies",
    user: true,
    columns: [{ title: "STATE", value: stateOf }, age, source, labels],
  },
  {
    kind: "Mesh",
    plural: "meshes",
    short: ["mesh"],
    path: "/v1/meshes",
    user: false,
    columns: [
      cluster,
      { title: "TYPE", value: (i) => text(get(i, "spec.type")) },
      { title: "TRUST DOMAIN", wide: true, value: (i) => text(get(i, "spec.istio.trustDomain")) },
      { title: "ZTUNNEL", wide: true, value: (i) => text(get(i, "spec.istio.ambient.ztunnel.version")) },
    ],
  },
  {
    kind: "Workload",
    plural: "workloads",
    short: ["wl", "workload"],
    path: "/v1/workloads",
    user: false,
    columns: [
      cluster,
      namespace,
      { title: "MESH", value: (i) => text(get(i, "spec.mesh")) },
      dataPlane,
      waypoint,
      { title: "SERVICE ACCOUNT", wide: true, value: (i) => text(get(i, "spec.serviceAccount")) },
    ],
  },
  {
    kind: "Destination",
    plural: "destinations",
    short: ["dest", "destination"],
    path: "/v1/destinations",
    user: false,
    columns: [
      cluster,
      namespace,
      { title: "MESH", value: (i) => text(get(i, "spec.mesh")) },
      {
        title: "PORTS",
        value: (i) => ((get(i, "spec.ports") as { port: number; protocol: string }[] | undefined) ?? []).map((p) => `${p.port}/${p.protocol}`).join(","),
      },
      dataPlane,
      waypoint,
    ],
  },
  {
    kind: "Cluster",
    plural: "clusters",
    short: ["cluster"],
    path: "/v1/clusters",
    user: false,
    columns: [
      { title: "STATE", value: (i) => text(get(i, "state")) },
      { title: "APPLIED", value: (i) => text(get(i, "appliedGeneration")) },
      { title: "LAST SEEN", value: (i) => text(get(i, "lastSeenAt")) },
      { title: "CREATED", wide: true, value: (i) => text(get(i, "createdAt")) },
      { title: "AUTHORING", wide: true, value: (i) => grantText(get(i, "authoring") as Parameters<typeof grantText>[0]) },
    ],
  },
];

/** The kind a user typed: kind, plural or short name, any case. */
export function kindOf(name: string): Kind | undefined {
  const n = name.toLowerCase();
  return KINDS.find((k) => k.kind.toLowerCase() === n || k.plural === n || k.short.includes(n));
}

export function kindNames(): string {
  return KINDS.map((k) => `${k.plural} (${k.short[0]})`).join(", ");
}

export { get as field, text };
