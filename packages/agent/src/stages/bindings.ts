import { type KubeObject, type ObjectResult, groupOf, objectKeyOf } from "@meshplane/core";
import { failureOf } from "../kube/failure";
import type { KubeClient } from "../kube/kube";
import { type Scope, ownedBy } from "../ownership";
import { BINDING_KINDS, type Binding, type BindingKind } from "./binding-kinds";
import type { StageEnv } from "./env";
import { failedResult } from "./object-results";

export interface BindingInput {
  /** The desired set of the snapshot verified last. */
  objects: readonly KubeObject[];
  /** objectKeys of the objects apply could not apply this cycle: their bindings are left as they are. */
  failed: ReadonlySet<string>;
}

/** A Gateway whose list of one kind is not followed this cycle (malformed, or its apply failed). */
interface Held {
  kind: BindingKind;
  gateway: Binding["gateway"];
}

const SERVICE = { apiVersion: "v1", kind: "Service" } as const;
const key = (kind: BindingKind, namespace: string, name: string) => `${kind.label} ${namespace}/${name}`;

/**
 * The bindings the snapshot asks for (docs/agent.md#waypoint-bindings): for each kind, the Services
 * each owned Gateway API Gateway lists in the kind's annotation, validated here like every input
 * from the control plane. A malformed list is a failed result of its Gateway and binds nothing;
 * such a Gateway, and one whose key is in `failed`, is `held`: its bindings stay as they are.
 */
export function desiredBindings(
  objects: readonly KubeObject[],
  scope: Scope,
  failed: ReadonlySet<string> = new Set(),
): { bindings: Binding[]; invalid: ObjectResult[]; held: Held[] } {
  const bindings: Binding[] = [];
  const invalid: ObjectResult[] = [];
  const held: Held[] = [];
  for (const obj of objects) {
    if (obj.kind !== "Gateway" || groupOf(obj.apiVersion) !== "gateway.networking.k8s.io" || !ownedBy(obj.metadata.labels, scope)) continue;
    const namespace = obj.metadata.namespace;
    if (namespace === undefined) continue;
    const gateway = { apiVersion: obj.apiVersion, kind: obj.kind, name: obj.metadata.name, namespace };
    const applied = !failed.has(objectKeyOf(obj));
    for (const kind of BINDING_KINDS) {
      const text = obj.metadata.annotations[kind.annotation];
      if (text === undefined) continue;
      const parsed = kind.parse(text, gateway);
      if (parsed === undefined) invalid.push(failedResult(gateway, { type: "invalid", message: kind.invalid }));
      if (parsed === undefined || !applied) held.push({ kind, gateway });
      else for (const b of parsed) bindings.push({ ...b, kind, gateway });
    }
  }
  return { bindings, invalid, held };
}

/** Whether `service`'s managedFields show `kind`'s manager applying its label. */
function boundByUs(kind: BindingKind, service: { metadata?: { managedFields?: { manager?: string; operation?: string; fieldsV1?: unknown }[] } }): boolean {
  return (service.metadata?.managedFields ?? []).some(
    (f) => f.manager === kind.manager && f.operation === "Apply" && JSON.stringify(f.fieldsV1 ?? {}).includes(`"f:${kind.label}"`),
  );
}

/** Applies one binding: its label alone, under its kind's manager, on a Service that exists. */
async function bind(kube: KubeClient, b: Binding): Promise<ObjectResult | undefined> {
  const ref = { ...SERVICE, name: b.service, namespace: b.namespace };
  const what = b.kind.doing(b);
  try {
    // Server-side apply creates what does not exist; a binding must never make a Service.
    if ((await kube.read(ref)) === undefined)
      return failedResult(b.gateway, { type: "not-found", message: "the Service does not exist; meshplane creates none" }, what);
    await kube.applyAs({ ...SERVICE, metadata: { name: b.service, namespace: b.namespace, labels: { [b.kind.label]: b.value } } }, b.kind.manager);
    return undefined;
  } catch (error) {
    const failure = failureOf(error);
    if (failure.type === "conflict")
      return failedResult(
        b.gateway,
        {
          type: "conflict",
          message: `another field manager set ${b.kind.label} on it (changed by hand?), and meshplane does not overwrite it: ${b.kind.handSet(b)} (${failure.message})`,
        },
        what,
      );
    return failedResult(b.gateway, failure, what);
  }
}

/**
 * Releases every label of `kind` its manager applied that no binding in `kept` asks for and no
 * `held` Gateway could have asked for: the manager applies the Service without the label, which
 * removes it only where that manager alone owned it. A release is a `pruned` (or `failed`) Service.
 */
async function release(kube: KubeClient, kind: BindingKind, kept: ReadonlySet<string>, held: readonly Held[]): Promise<ObjectResult[]> {
  let labelled;
  try {
    labelled = await kube.list(SERVICE.apiVersion, SERVICE.kind, kind.label);
  } catch (error) {
    return [failedResult({ ...SERVICE, name: "*" }, failureOf(error), `cannot list Services labelled ${kind.label}: `)];
  }
  const results: ObjectResult[] = [];
  for (const service of labelled) {
    const namespace = service.metadata?.namespace ?? "";
    const name = service.metadata?.name ?? "";
    const value = service.metadata?.labels?.[kind.label] ?? "";
    if (kept.has(key(kind, namespace, name)) || !boundByUs(kind, service)) continue;
    if (held.some((h) => h.kind === kind && kind.covers(h.gateway, namespace, value))) continue;
    const ref = { ...SERVICE, name, namespace };
    try {
      await kube.applyAs({ ...SERVICE, metadata: { name, namespace } }, kind.manager);
      results.push({ ...ref, state: "pruned" });
    } catch (error) {
      results.push(failedResult(ref, failureOf(error), kind.releasing));
    }
  }
  return results;
}

/**
 * The binding stage (docs/agent.md#waypoint-bindings); it runs whenever apply ran. For each kind
 * (waypoint bindings, global services), sets the label on each Service the snapshot's Gateways list
 * (never creating one, never forcing a label another manager owns), and releases every label of
 * ours no Gateway lists any more. The labels of a Gateway apply could not apply, or whose list is
 * malformed, are left as they are. Failures are results of the Gateway (its parents' statuses show them).
 */
export async function bindingStage(env: Pick<StageEnv, "kube" | "scope">, input: BindingInput): Promise<{ results: ObjectResult[]; ms: number }> {
  const started = performance.now();
  const { bindings, invalid, held } = desiredBindings(input.objects, env.scope, input.failed);
  const results: ObjectResult[] = [...invalid];
  for (const b of bindings) {
    const failed = await bind(env.kube, b);
    if (failed !== undefined) results.push(failed);
  }
  const kept = new Set(bindings.map((b) => key(b.kind, b.namespace, b.service)));
  for (const kind of BINDING_KINDS) results.push(...(await release(env.kube, kind, kept, held)));
  return { results, ms: performance.now() - started };
}
