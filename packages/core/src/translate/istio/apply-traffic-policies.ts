import type { Destination, HttpMatcher, TrafficPolicyFeatures } from "../../api/index";
import { ownValue, setOwn } from "../../own-keys";
import type { FederationLinks, LinkProblem } from "../virtual-mesh/federation-links";
import type { FederationPlan } from "../virtual-mesh/federation-plan";
import { type Model, refKey } from "../input/model";
import type { Conflict, Fields } from "../policy/owned-fields";
import { OwnedFields } from "../policy/owned-fields";
import { type CallerScope, callerScopes, describeScope, overlapErrors, scopeKey } from "./caller-scopes";
import { type Feature, ROUTE_DECORATORS, type RouteContext, TRAFFIC_POLICY_DECORATORS } from "./decorators/index";
import { federatedCallProblems } from "./federated-calls";
import type { DecoratorContext } from "./decorators/types";
import { type IstioDestinationState, type TrafficPolicy, emptyState, groupKey, routeFeaturesOf } from "./destination-state";
import { hostFrom, type View, viewsOf } from "./hosts";
import { httpPorts } from "./ports";
import type { IstioOutputs } from "./render-destination";
import type { DestinationTrafficPolicy, HttpRouteFields } from "./types";

/** What applying policies to a destination reads besides the policies. */
export interface ApplyContext {
  model: Model;
  plan: FederationPlan;
  links: FederationLinks;
  /** Names of the meshes a policy's source workloads are in; undefined without a sourceSelector (every caller). */
  callers: (policy: TrafficPolicy) => ReadonlySet<string> | undefined;
  /** The route objects the policies become; absent: VirtualServices. */
  routes?: RouteOutput;
}

/** A kind of route object policies become: its feature decorators, what its fields are called, its policy-wide errors. */
export interface RouteOutput {
  decorators: readonly { readonly feature: Feature; decorate(features: TrafficPolicyFeatures, ctx: RouteContext): object | undefined }[];
  /** A route field's name in conflict errors. */
  field: (path: string) => string;
  /** Why a policy cannot become this kind of route on the destination, before its features are decorated. */
  errors: (spec: TrafficPolicy["spec"], destination: Destination) => string[];
  /**
   * Why a policy's route `fields` on `port`, in the route group `key` (its `matchers`), cannot join
   * the routes accepted so far in `state`, beyond field conflicts: limits of the route kind across
   * policies. Absent: none.
   */
  fits?: (state: IstioDestinationState, key: string, matchers: readonly HttpMatcher[] | undefined, port: number, fields: Fields) => string[];
}

/** Istio's VirtualService routes. */
const VIRTUAL_SERVICE: RouteOutput = { decorators: ROUTE_DECORATORS, field: (p) => `VirtualService http route field ${p}`, errors: () => [] };

interface Contribution {
  routes: Map<number, HttpRouteFields>;
  trafficPolicy: DestinationTrafficPolicy;
  /** Where `trafficPolicy` goes: undefined for every caller, else the callers the sourceSelector names. */
  scopes: CallerScope[] | undefined;
}

const TRAFFIC_POLICY_FEATURES = TRAFFIC_POLICY_DECORATORS.map((d) => d.feature);

function isPlainObject(value: unknown): value is Fields {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Writes `incoming` into `target`, objects member by member: two decorators may fill one field (`timeouts.request`, `timeouts.backendRequest`). */
function mergeInto(target: Fields, incoming: object | undefined): void {
  for (const [key, next] of Object.entries(incoming ?? {})) {
    const current = ownValue(target, key);
    if (isPlainObject(current) && isPlainObject(next)) mergeInto(current, next);
    else setOwn(target, key, isPlainObject(next) ? { ...next } : next);
  }
}

function contribution(spec: TrafficPolicy["spec"], views: readonly View[], ctx: DecoratorContext, output: RouteOutput): Contribution {
  const features = spec.policy;
  const routes = new Map<number, HttpRouteFields>();
  const used = routeFeaturesOf(
    features,
    output.decorators.map((d) => d.feature),
  );
  const ports = httpPorts(ctx.destination);
  if (used.length > 0 && ports.length === 0) ctx.report(`route features (${used.join(", ")}) need an HTTP port; the service has none`);
  for (const { port } of used.length > 0 ? ports : []) {
    const fields: HttpRouteFields = {};
    for (const decorator of output.decorators) mergeInto(fields as Fields, decorator.decorate(features, { ...ctx, port }));
    routes.set(port, fields);
  }
  const trafficPolicy: DestinationTrafficPolicy = {};
  for (const decorator of TRAFFIC_POLICY_DECORATORS) {
    Object.assign(trafficPolicy, decorator.decorate(features, ctx));
  }
  const sources = spec.sourceSelector ?? [];
  if (sources.length === 0 || Object.keys(trafficPolicy).length === 0) return { routes, trafficPolicy, scopes: undefined };
  const scoped = callerScopes(sources, views, ctx.model, routeFeaturesOf(features, TRAFFIC_POLICY_FEATURES));
  for (const error of scoped.errors) ctx.report(error);
  return { routes, trafficPolicy, scopes: scoped.scopes };
}

/**
 * Errors that depend on where the routes are rendered: unreachable targets, and TLS the servers
 * will refuse — a mode other than ISTIO_MUTUAL breaks federation, and in a mesh with shared trust
 * (STRICT mTLS, docs/resources.md#virtualmesh) the destination's sidecars refuse any client without
 * an Istio certificate. Such a policy is rejected rather than a PeerAuthentication loosened behind
 * the VirtualMesh's back.
 */
function viewErrors(features: TrafficPolicyFeatures, views: readonly View[], ctx: ApplyContext): string[] {
  const errors: string[] = [];
  const refs = [
    ...(features.trafficShift?.destinations ?? []).map((d) => ({ what: "trafficShift destination", ref: d.kubeService })),
    ...(features.mirror ? [{ what: "mirror destination", ref: features.mirror.kubeService }] : []),
  ];
  for (const { what, ref } of refs) {
    const target = ctx.model.destinationByRef(ref);
    if (target === undefined) continue;
    const name = refKey(ref);
    if (ctx.model.meshOf(target).spec.type !== "istio") errors.push(`${what} ${name} is not in an Istio mesh`);
    for (const view of views) {
      if (hostFrom(target, view.mesh, ctx.plan) === undefined) {
        errors.push(
          `${what} ${name} is not reachable from mesh ${view.mesh.metadata.name}: ${ctx.links.unreachable(view.mesh, target) ?? "federate it there with a VirtualMesh"}`,
        );
      }
    }
  }
  const mode = features.mtls?.istio.tlsMode;
  if (mode !== undefined && mode !== "ISTIO_MUTUAL" && views.some((v) => v.federated)) {
    errors.push(`mtls.istio.tlsMode ${mode} would break federation of this service: cross-cluster traffic needs ISTIO_MUTUAL`);
  }
  const local = views[0]?.mesh;
  const member = local === undefined ? undefined : ctx.plan.members.get(local.metadata.name);
  if (mode !== undefined && mode !== "ISTIO_MUTUAL" && member?.virtualMesh.spec.mtlsConfig?.shared !== undefined) {
    errors.push(
      `mtls.istio.tlsMode ${mode}: mesh ${local?.metadata.name} enforces STRICT mTLS (VirtualMesh ${member.virtualMesh.metadata.name} has shared trust), so the service's sidecars would refuse these clients; remove mtls from this policy`,
    );
  }
  return errors;
}

function conflictErrors(conflicts: readonly Conflict[], field: (path: string) => string): string[] {
  return conflicts.map((c) => `conflicts with TrafficPolicy ${c.owner}: both set ${field(c.path)} to different values`);
}

function drField(path: string): string {
  return `DestinationRule field trafficPolicy.${path}`;
}

function conflictsWith(state: IstioDestinationState, key: string, spec: TrafficPolicy["spec"], c: Contribution, output: RouteOutput): string[] {
  const group = state.groups.get(key);
  const errors: string[] = [];
  for (const [port, fields] of c.routes) {
    const existing = group?.byPort.get(port);
    if (existing) errors.push(...conflictErrors(existing.conflicts(fields as Fields), output.field));
    if (Object.keys(fields).length > 0) errors.push(...(output.fits?.(state, key, spec.httpRequestMatchers, port, fields as Fields) ?? []));
  }
  if (c.scopes === undefined) errors.push(...conflictErrors(state.trafficPolicy.conflicts(c.trafficPolicy as Fields), drField));
  else {
    for (const scope of c.scopes) {
      const cell = state.scoped.get(scopeKey(scope));
      if (cell !== undefined)
        errors.push(...conflictErrors(cell.fields.conflicts(c.trafficPolicy as Fields), (p) => `${drField(p)} for ${describeScope(scope)}`));
    }
    errors.push(...overlapErrors(c.scopes, state.scoped));
  }
  return errors;
}

function commit(state: IstioDestinationState, policy: TrafficPolicy, key: string, rank: number, c: Contribution): void {
  const name = policy.metadata.name;
  const hasRoute = [...c.routes.values()].some((fields) => Object.keys(fields).length > 0);
  if (hasRoute) {
    let group = state.groups.get(key);
    if (group === undefined) {
      group = { sources: policy.spec.sourceSelector, matchers: policy.spec.httpRequestMatchers, rank, byPort: new Map() };
      state.groups.set(key, group);
    }
    for (const [port, fields] of c.routes) {
      const owned = group.byPort.get(port) ?? new OwnedFields();
      group.byPort.set(port, owned);
      owned.commit(fields as Fields, name);
    }
  }
  if (c.scopes === undefined) {
    state.trafficPolicy.commit(c.trafficPolicy as Fields, name);
    return;
  }
  for (const scope of c.scopes) {
    const cellKey = scopeKey(scope);
    let cell = state.scoped.get(cellKey);
    if (cell === undefined) {
      cell = { scope, fields: new OwnedFields() };
      state.scoped.set(cellKey, cell);
    }
    cell.fields.commit(c.trafficPolicy as Fields, name);
  }
}

/**
 * Applies `ordered` (valid policies selecting `destination`, in acceptance order) to an Istio
 * destination. A policy whose features fail on this destination, or that sets a field an earlier
 * accepted policy set to a different value, is reported through `report` and contributes nothing
 * here (docs/resources.md#trafficpolicy: INVALID for that destination only). Decisions are made in
 * order, but a rejected policy's conflicts are listed against everything finally accepted: the list
 * is then the same however the rejected policy was ordered among accepted ones, so re-translating
 * with the statuses this produced reports the same errors. A policy whose calls a VirtualMesh
 * cannot carry yet is held back the same way (federated-calls.ts), as PENDING or FAILED when that
 * is what the VirtualMesh is. Returns the merged state, the accepted policies in order and the
 * held-back ones' states.
 */
export function applyToIstioDestination(
  destination: Destination,
  ordered: readonly TrafficPolicy[],
  ctx: ApplyContext,
  report: (policy: TrafficPolicy, error: string) => void,
): { outputs: IstioOutputs; accepted: TrafficPolicy[]; held: Map<TrafficPolicy, "PENDING" | "FAILED"> } {
  const state = emptyState(destination);
  const views = viewsOf(destination, ctx.model, ctx.plan);
  const accepted: TrafficPolicy[] = [];
  const held = new Map<TrafficPolicy, "PENDING" | "FAILED">();
  const conflicting: { policy: TrafficPolicy; key: string; c: Contribution }[] = [];
  const output = ctx.routes ?? VIRTUAL_SERVICE;
  ordered.forEach((policy, rank) => {
    const errors: string[] = output.errors(policy.spec, destination);
    const features = policy.spec.policy;
    const c = contribution(policy.spec, views, { model: ctx.model, destination, report: (e) => errors.push(e) }, output);
    errors.push(...viewErrors(features, views, ctx));
    const waits = federatedCallProblems(features, destination, views, ctx.callers(policy), ctx);
    const key = groupKey(policy.spec);
    if (errors.length > 0 || waits.length > 0) {
      for (const error of [...errors, ...waits.map((w) => w.error)]) report(policy, error);
      const waiting = heldState(waits);
      if (errors.length === 0 && waiting !== "INVALID") held.set(policy, waiting);
    } else if (conflictsWith(state, key, policy.spec, c, output).length > 0) conflicting.push({ policy, key, c });
    else {
      commit(state, policy, key, rank, c);
      accepted.push(policy);
    }
  });
  for (const { policy, key, c } of conflicting) for (const error of conflictsWith(state, key, policy.spec, c, output)) report(policy, error);
  return { outputs: { state }, accepted, held };
}

/** The state calls that cannot go through give a policy: INVALID over FAILED over PENDING. */
function heldState(waits: readonly { state: LinkProblem["state"] }[]): LinkProblem["state"] {
  if (waits.some((w) => w.state === "INVALID")) return "INVALID";
  return waits.some((w) => w.state === "FAILED") ? "FAILED" : "PENDING";
}
