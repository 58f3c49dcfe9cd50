import { DestinationRule as DestinationRuleV1alpha3 } from "@kubernetes-models/istio/networking.istio.io/v1alpha3/DestinationRule";
import { Gateway as GatewayV1alpha3 } from "@kubernetes-models/istio/networking.istio.io/v1alpha3/Gateway";
import { ServiceEntry as ServiceEntryV1alpha3 } from "@kubernetes-models/istio/networking.istio.io/v1alpha3/ServiceEntry";
import { VirtualService as VirtualServiceV1alpha3 } from "@kubernetes-models/istio/networking.istio.io/v1alpha3/VirtualService";
import { DestinationRule } from "@kubernetes-models/istio/networking.istio.io/v1beta1/DestinationRule";
import { Gateway } from "@kubernetes-models/istio/networking.istio.io/v1beta1/Gateway";
import { ServiceEntry } from "@kubernetes-models/istio/networking.istio.io/v1beta1/ServiceEntry";
import { VirtualService } from "@kubernetes-models/istio/networking.istio.io/v1beta1/VirtualService";
import { AuthorizationPolicy as AuthorizationPolicyV1 } from "@kubernetes-models/istio/security.istio.io/v1/AuthorizationPolicy";
import { AuthorizationPolicy } from "@kubernetes-models/istio/security.istio.io/v1beta1/AuthorizationPolicy";
import { PeerAuthentication } from "@kubernetes-models/istio/security.istio.io/v1beta1/PeerAuthentication";
import { Ajv } from "ajv";
import { type AjvIssue, describeAjvErrors } from "./errors";
import type { StructuralSchema } from "./structural";

/** What we use of a kubernetes-models class: its own apiVersion, and validate() on an instance. */
interface ModelClass {
  apiVersion: string;
  new (data: Record<string, unknown>): { validate(): void };
}
const model = (cls: unknown) => cls as ModelClass;

/**
 * `<apiVersion>/<kind>` → the model whose schema applies. The package carries Istio 1.18's CRDs,
 * which have no networking v1 (added in Istio 1.22) and no security v1 PeerAuthentication. Istio
 * generates every served version of a kind from the same proto, so the v1 schema *is* the v1beta1
 * schema: a v1 object is validated with the v1beta1 class under the v1beta1 apiVersion. Where the
 * package has the exact version (v1alpha3 networking, v1 AuthorizationPolicy) we use it.
 */
const MODELS: Record<string, ModelClass> = {
  "networking.istio.io/v1/VirtualService": model(VirtualService),
  "networking.istio.io/v1beta1/VirtualService": model(VirtualService),
  "networking.istio.io/v1alpha3/VirtualService": model(VirtualServiceV1alpha3),
  "networking.istio.io/v1/DestinationRule": model(DestinationRule),
  "networking.istio.io/v1beta1/DestinationRule": model(DestinationRule),
  "networking.istio.io/v1alpha3/DestinationRule": model(DestinationRuleV1alpha3),
  "networking.istio.io/v1/ServiceEntry": model(ServiceEntry),
  "networking.istio.io/v1beta1/ServiceEntry": model(ServiceEntry),
  "networking.istio.io/v1alpha3/ServiceEntry": model(ServiceEntryV1alpha3),
  "networking.istio.io/v1/Gateway": model(Gateway),
  "networking.istio.io/v1beta1/Gateway": model(Gateway),
  "networking.istio.io/v1alpha3/Gateway": model(GatewayV1alpha3),
  "security.istio.io/v1/AuthorizationPolicy": model(AuthorizationPolicyV1),
  "security.istio.io/v1beta1/AuthorizationPolicy": model(AuthorizationPolicy),
  "security.istio.io/v1/PeerAuthentication": model(PeerAuthentication),
  "security.istio.io/v1beta1/PeerAuthentication": model(PeerAuthentication),
};

function ajvIssues(error: unknown): AjvIssue[] | undefined {
  const issues = (error as { errors?: unknown } | null)?.errors;
  return Array.isArray(issues) ? (issues as AjvIssue[]) : undefined;
}

function validateWith(cls: ModelClass, object: Record<string, unknown>): AjvIssue[] {
  try {
    new cls({ ...object, apiVersion: cls.apiVersion }).validate();
    return [];
  } catch (error) {
    // validate() throws ajv's ValidationError, whose `errors` are the issues; anything else is a bug.
    const issues = ajvIssues(error);
    if (!issues) throw error;
    return issues;
  }
}

/** Whether `<apiVersion>/<kind>` is an Istio kind we can validate. */
export function isIstioKind(key: string): boolean {
  return Object.hasOwn(MODELS, key);
}

/**
 * `spec.targetRefs` of an AuthorizationPolicy (Istio 1.22 and later), which the package's Istio 1.18
 * CRDs lack: the schema of Istio's own CRD (manifests/charts/base/files/crd-all.gen.yaml of the
 * istio.io/istio module the Istio tier builds), and its rule that a policy sets a selector or
 * targetRefs, not both. The CEL rule refusing a namespace in a reference is the `not` below.
 */
const TARGET_REFS = {
  type: "array",
  maxItems: 16,
  items: {
    type: "object",
    required: ["kind", "name"],
    properties: {
      group: { type: "string", maxLength: 253, pattern: "^$|^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$" },
      kind: { type: "string", minLength: 1, maxLength: 63, pattern: "^[a-zA-Z]([-a-zA-Z0-9]*[a-zA-Z0-9])?$" },
      name: { type: "string", minLength: 1, maxLength: 253 },
      namespace: { type: "string", maxLength: 0 },
    },
  },
};
const validateTargetRefs = new Ajv({ allErrors: true, strict: false }).compile(TARGET_REFS);
const TARGETABLE = new Set(["security.istio.io/v1/AuthorizationPolicy", "security.istio.io/v1beta1/AuthorizationPolicy"]);

/** Problems of an AuthorizationPolicy's targetRefs, and the object without them for the package's schema. */
function withoutTargetRefs(key: string, object: Record<string, unknown>): { problems: string[]; rest: Record<string, unknown> } {
  const spec = object.spec as Record<string, unknown> | undefined;
  if (!TARGETABLE.has(key) || spec === undefined || !Object.hasOwn(spec, "targetRefs")) return { problems: [], rest: object };
  const { targetRefs, ...others } = spec;
  const problems = validateTargetRefs(targetRefs) ? [] : describeAjvErrors((validateTargetRefs.errors ?? []) as AjvIssue[]).map((p) => `spec.targetRefs${p}`);
  if (Object.hasOwn(spec, "selector")) problems.push("spec: only one of targetRefs or selector can be set");
  return { problems, rest: { ...object, spec: others } };
}

/**
 * Schema problems of an Istio object (`key` = `<apiVersion>/<kind>`), as readable `path: problem`
 * lines; empty when valid. Unknown fields pass, as they do at the API server without strict
 * field validation (see `istioSpecSchema` for the strict check). Throws for a key `isIstioKind` rejects.
 */
export function validateIstio(key: string, object: Record<string, unknown>): string[] {
  const cls = MODELS[key];
  if (!cls) throw new Error(`no Istio model for ${key}`);
  const { problems, rest } = withoutTargetRefs(key, object);
  return [...problems, ...describeAjvErrors(validateWith(cls, rest))];
}

const specSchemas = new Map<ModelClass, StructuralSchema>();

/**
 * The root schema (spec only) of an Istio kind, for the strict unknown-field check. The package does
 * not export its schemas, but its ajv runs with `verbose`, so a failing error carries the schema it
 * failed against: validating `spec: 0` yields a type error whose parentSchema is the spec schema.
 */
export function istioSpecSchema(key: string): StructuralSchema {
  const cls = MODELS[key];
  if (!cls) throw new Error(`no Istio model for ${key}`);
  let spec = specSchemas.get(cls);
  if (!spec) {
    const probe = validateWith(cls, { metadata: { name: "probe" }, spec: 0 }).find((i) => i.instancePath === "/spec" && i.keyword === "type");
    const parent = (probe as { parentSchema?: StructuralSchema } | undefined)?.parentSchema;
    if (!parent) throw new Error(`cannot read the spec schema of ${key}: @kubernetes-models/validate no longer reports parentSchema`);
    spec = TARGETABLE.has(key) ? { ...parent, properties: { ...parent.properties, targetRefs: TARGET_REFS as StructuralSchema } } : parent;
    specSchemas.set(cls, spec);
  }
  return { type: "object", properties: { spec, status: { type: "object" } } };
}
