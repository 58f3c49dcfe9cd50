import {
  ANNOTATION_GLOBAL_SERVICES,
  ANNOTATION_WAYPOINT_SERVICES,
  BINDING_FIELD_MANAGER,
  LABEL_GLOBAL,
  LABEL_USE_WAYPOINT,
  parseGlobalServices,
  parseWaypointServices,
} from "@meshplane/core";

/** One label one Service is to carry, asked for by an owned Gateway of the snapshot. */
export interface Binding {
  kind: BindingKind;
  namespace: string;
  service: string;
  /** The label's value. */
  value: string;
  /** The Gateway that asks for it: failures are reported against it, so they reach its parents' statuses. */
  gateway: { apiVersion: string; kind: string; name: string; namespace: string };
}

/**
 * A label the agent sets on the user's Services (docs/agent.md#waypoint-bindings): which annotation
 * of an owned Gateway lists the Services, the label and its value, the field manager that applies
 * that label alone, and the words of its failures.
 */
export interface BindingKind {
  label: string;
  manager: string;
  annotation: string;
  /** The bindings `text` (the annotation of Gateway `gateway`) asks for, or undefined when it is malformed. */
  parse: (text: string, gateway: Binding["gateway"]) => Omit<Binding, "kind" | "gateway">[] | undefined;
  /**
   * Whether Gateway `gateway` could have asked for the label `value` on a Service of `namespace`:
   * while its apply fails or its list is malformed, such labels are not released.
   */
  covers: (gateway: Binding["gateway"], namespace: string, value: string) => boolean;
  /** The error of a Gateway whose annotation is malformed. */
  invalid: string;
  /** What the agent was doing, before an error about one binding. */
  doing: (b: Binding) => string;
  /** What to do about the label set by hand to another value, and where the docs say why. */
  handSet: (b: Binding) => string;
  /** What the agent was doing, before an error about a release. */
  releasing: string;
}

const removeLabel = (b: Binding) => `kubectl label service -n ${b.namespace} ${b.service} ${b.kind.label}-`;

/**
 * Waypoint bindings (docs/ambient.md#waypoints-on-demand): a waypoint Gateway's
 * ANNOTATION_WAYPOINT_SERVICES names Services of its own namespace, bound with
 * LABEL_USE_WAYPOINT set to the waypoint's name.
 */
export const WAYPOINT_BINDING: BindingKind = {
  label: LABEL_USE_WAYPOINT,
  manager: BINDING_FIELD_MANAGER,
  annotation: ANNOTATION_WAYPOINT_SERVICES,
  parse: (text, gateway) => parseWaypointServices(text)?.map((service) => ({ namespace: gateway.namespace, service, value: gateway.name })),
  covers: (gateway, namespace, value) => gateway.namespace === namespace && gateway.name === value,
  invalid: `${ANNOTATION_WAYPOINT_SERVICES} is not a list of Service names: nothing bound`,
  doing: (b) => `bind Service ${b.namespace}/${b.service} to waypoint ${b.value}: `,
  handSet: (b) =>
    `remove the label (${removeLabel(b)}) and meshplane binds the Service again, ` +
    "or bind it to a waypoint of your own, which meshplane then uses (docs/ambient.md#waypoints-on-demand)",
  releasing: "release waypoint binding: ",
};

/** The field manager that applies LABEL_GLOBAL, and nothing else, to the Services an east-west gateway lists. */
export const GLOBAL_FIELD_MANAGER = "meshplane-global-service";

/**
 * Global services (docs/ambient.md#ambient-multicluster): an east-west gateway's
 * ANNOTATION_GLOBAL_SERVICES names Services (`namespace/name`) of its cluster, marked
 * LABEL_GLOBAL "true" so Istio merges them with their namesakes in the other clusters.
 */
export const GLOBAL_SERVICE: BindingKind = {
  label: LABEL_GLOBAL,
  manager: GLOBAL_FIELD_MANAGER,
  annotation: ANNOTATION_GLOBAL_SERVICES,
  parse: (text) => parseGlobalServices(text)?.map(({ namespace, name }) => ({ namespace, service: name, value: "true" })),
  // An east-west gateway lists Services of every namespace of its cluster.
  covers: () => true,
  invalid: `${ANNOTATION_GLOBAL_SERVICES} is not a list of Services (namespace/name): nothing marked global`,
  doing: (b) => `mark Service ${b.namespace}/${b.service} global (${LABEL_GLOBAL}: "true"): `,
  handSet: (b) =>
    `while it is not "true" Istio keeps the Service local to this cluster, unmerged with the other clusters' copies; ` +
    `remove the label (${removeLabel(b)}) and meshplane marks the Service global again, or stop federating it ` +
    "(docs/ambient.md#ambient-multicluster)",
  releasing: "release global service: ",
};

/** Every kind of binding, in the order the stage applies them. */
export const BINDING_KINDS: readonly BindingKind[] = [WAYPOINT_BINDING, GLOBAL_SERVICE];
