import {
  ANNOTATION_WAYPOINT_SERVICES,
  BINDING_FIELD_MANAGER,
  type KubeObject,
  LABEL_USE_WAYPOINT,
  type ObjectResult,
  groupOf,
  objectKeyOf,
} from "@meshplane/core";
import { z } from "zod";
import { failureOf } from "../kube/failure";
import type { KubeClient, ObjectRef } from "../kube/kube";
import { type Scope, ownedBy } from "../ownership";
import type { StageEnv } from "./env";
import { failedResult } from "./object-results";

export interface BindingInput {
  /** The desired set of the snapshot verified last. */
  objects: readonly KubeObject[];
  /** objectKeys of the objects apply could not apply this cycle: their bindings are left as they are. */
  failed: ReadonlySet<string>;
}

/** One Service bound to a waypoint of its namespace. */
interface Binding {
  namespace: string;
  service: string;
  waypoint: string;
  /** The waypoint Gateway: failures are reported against it, so they reach its parents' statuses. */
  gateway: ObjectRef;
}

/** The annotation as the snapshot must carry it: Service names (DNS-1035 labels), at most a namespace's worth. */
const serviceNames = z.array(z.string().regex(/^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/)).max(10_000);

const SERVICE = { apiVersion: "v1", kind: "Service" } as const;
const key = (namespace: string, name: string) => `${namespace}/${name}`;

/**
 * The bindings the snapshot asks for (docs/agent.md#waypoint-bindings): the Services each owned
 * waypoint Gateway lists in ANNOTATION_WAYPOINT_SERVICES, validated here like every input from the
 * control plane. A malformed list is a failed result of its Gateway and binds nothing.
 */
export function desiredBindings(objects: readonly KubeObject[], scope: Scope): { bindings: Binding[]; invalid: ObjectResult[] } {
  const bindings: Binding[] = [];
  const invalid: ObjectResult[] = [];
  for (const obj of objects) {
    if (obj.kind !== "Gateway" || groupOf(obj.apiVersion) !== "gateway.networking.k8s.io" || !ownedBy(obj.metadata.labels, scope)) continue;
    const text = obj.metadata.annotations[ANNOTATION_WAYPOINT_SERVICES];
    if (text === undefined || obj.metadata.namespace === undefined) continue;
    const gateway = { apiVersion: obj.apiVersion, kind: obj.kind, name: obj.metadata.name, namespace: obj.metadata.namespace };
    let parsed: z.ZodSafeParseResult<string[]>;
    try {
      parsed = serviceNames.safeParse(JSON.parse(text));
    } catch {
      parsed = serviceNames.safeParse(undefined);
    }
    if (!parsed.success) {
      invalid.push(failedResult(gateway, { type: "invalid", message: `${ANNOTATION_WAYPOINT_SERVICES} is not a list of Service names: nothing bound` }));
      continue;
    }
    for (const service of parsed.data) bindings.push({ namespace: gateway.namespace, service, waypoint: gateway.name, gateway });
  }
  return { bindings, invalid };
}

/** Whether `service`'s managedFields show BINDING_FIELD_MANAGER applying the binding label. */
function boundByUs(service: { metadata?: { managedFields?: { manager?: string; operation?: string; fieldsV1?: unknown }[] } }): boolean {
  return (service.metadata?.managedFields ?? []).some(
    (f) => f.manager === BINDING_FIELD_MANAGER && f.operation === "Apply" && JSON.stringify(f.fieldsV1 ?? {}).includes(`"f:${LABEL_USE_WAYPOINT}"`),
  );
}

/** Applies one binding: the label alone, under the binding manager, on a Service that exists. */
async function bind(kube: KubeClient, b: Binding): Promise<ObjectResult | undefined> {
  const ref = { ...SERVICE, name: b.service, namespace: b.namespace };
  const what = `bind Service ${b.namespace}/${b.service} to waypoint ${b.waypoint}: `;
  try {
    // Server-side apply creates what does not exist; a binding must never make a Service.
    if ((await kube.read(ref)) === undefined)
      return failedResult(b.gateway, { type: "not-found", message: "the Service does not exist; meshplane creates none" }, what);
    await kube.applyAs(
      { ...SERVICE, metadata: { name: b.service, namespace: b.namespace, labels: { [LABEL_USE_WAYPOINT]: b.waypoint } } },
      BINDING_FIELD_MANAGER,
    );
    return undefined;
  } catch (error) {
    const failure = failureOf(error);
    if (failure.type === "conflict")
      return failedResult(
        b.gateway,
        {
          type: "conflict",
          message:
            `another field manager set ${LABEL_USE_WAYPOINT} on it (changed by hand?), and meshplane does not overwrite it: ` +
            `remove the label (kubectl label service -n ${b.namespace} ${b.service} ${LABEL_USE_WAYPOINT}-) and meshplane binds the Service again, ` +
            `or bind it to a waypoint of your own, which meshplane then uses (docs/ambient.md#waypoints-on-demand) (${failure.message})`,
        },
        what,
      );
    return failedResult(b.gateway, failure, what);
  }
}

/**
 * The binding stage (docs/agent.md#waypoint-bindings); it runs whenever apply ran. Binds each Service
 * the snapshot's waypoints list (never creating one, never forcing a label another manager owns),
 * and releases every binding of ours no waypoint lists any more: the binding manager applies the
 * Service without the label, which removes it only where that manager alone owned it. Bindings of a
 * waypoint apply could not apply are left as they are. Failures are results of the waypoint's
 * Gateway (its parents' statuses show them); a release is a `pruned` (or `failed`) Service.
 */
export async function bindingStage(env: Pick<StageEnv, "kube" | "scope">, input: BindingInput): Promise<{ results: ObjectResult[]; ms: number }> {
  const started = performance.now();
  const { bindings, invalid } = desiredBindings(input.objects, env.scope);
  const results: ObjectResult[] = [...invalid];
  const kept = new Set(bindings.map((b) => key(b.namespace, b.service)));
  for (const b of bindings) {
    if (input.failed.has(objectKeyOf({ kind: "Gateway", metadata: b.gateway }))) continue;
    const failed = await bind(env.kube, b);
    if (failed !== undefined) results.push(failed);
  }
  let bound;
  try {
    bound = await env.kube.list(SERVICE.apiVersion, SERVICE.kind, LABEL_USE_WAYPOINT);
  } catch (error) {
    results.push(failedResult({ ...SERVICE, name: "*" }, failureOf(error), "cannot list bound Services: "));
    return { results, ms: performance.now() - started };
  }
  for (const service of bound) {
    const namespace = service.metadata?.namespace ?? "";
    const name = service.metadata?.name ?? "";
    if (kept.has(key(namespace, name)) || !boundByUs(service)) continue;
    const ref = { ...SERVICE, name, namespace };
    try {
      await env.kube.applyAs({ ...SERVICE, metadata: { name, namespace } }, BINDING_FIELD_MANAGER);
      results.push({ ...ref, state: "pruned" });
    } catch (error) {
      results.push(failedResult(ref, failureOf(error), "release waypoint binding: "));
    }
  }
  return { results, ms: performance.now() - started };
}
