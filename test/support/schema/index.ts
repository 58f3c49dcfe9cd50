import { istioSpecSchema, isIstioKind, validateIstio } from "./istio";
import { gatewayApiChecks, isGatewayApiGroup } from "./gateway-api";
import { isSmiGroup, loadSmiSchemas, validateSmi } from "./smi";
import { type StructuralSchema, metadataProblems, unknownFields } from "./structural";

export { loadSmiSchemas, OSM_MODULE, OSM_VERSION, type SmiSchema } from "./smi";
export { describeAjvErrors, readablePath } from "./errors";

export interface ValidateOptions {
  /**
   * Also report what the API server's strict field validation would: fields the schema does not
   * declare (instead of pruning them silently) and a missing or malformed metadata.name/namespace.
   */
  strict?: boolean;
}

/**
 * Checks a generated object against the real schema of its kind, as the cluster's API server would
 * (docs/resources.md#generated-objects: "everything generated passes the schema"). Istio kinds (networking VirtualService,
 * DestinationRule, ServiceEntry, Gateway; security AuthorizationPolicy, PeerAuthentication; v1,
 * v1beta1, v1alpha3) use @kubernetes-models/istio; SMI kinds use the CRDs OSM installs (downloaded
 * through the Go module proxy on first use — see `loadSmiSchemas`, which throws when it cannot);
 * Gateway API kinds the CRDs the lab caches: the standard channel, and the experimental one for the
 * fields only it has, such as an HTTPRoute rule's `retry` (`gatewayApiChecks`). CEL rules
 * are not checked here (the lab's apiservers run them).
 * Returns readable `path: problem` lines; empty means valid. Any other kind, or an unserved version,
 * gives the single line `no schema for <apiVersion>/<kind>`.
 */
export function validateGenerated(object: { apiVersion: string; kind: string }, options: ValidateOptions = {}): string[] {
  const key = `${object.apiVersion}/${object.kind}`;
  const record = object as unknown as Record<string, unknown>;
  let problems: string[];
  let schema: () => StructuralSchema;
  if (isGatewayApiGroup(object.apiVersion)) {
    const checks = gatewayApiChecks(object);
    if (checks.length === 0) return [`no schema for ${key}`];
    const found = checks.flatMap((c) => [...validateSmi(c.schema, c.object), ...(options.strict ? unknownFields(c.schema.schema, c.object) : [])]);
    return [...new Set([...(options.strict ? metadataProblems(record) : []), ...found])];
  }
  if (isIstioKind(key)) {
    problems = validateIstio(key, record);
    schema = () => istioSpecSchema(key);
  } else {
    const smi = isSmiGroup(object.apiVersion) ? loadSmiSchemas().get(key) : undefined;
    if (!smi) return [`no schema for ${key}`];
    problems = validateSmi(smi, object);
    schema = () => smi.schema;
  }
  if (!options.strict) return problems;
  return [...new Set([...metadataProblems(record), ...problems, ...unknownFields(schema(), object)])];
}
