import type { GatewayApiCrds, Mesh } from "../api/discovery";
import { labelValue } from "../api/common";
import { ownValue } from "../own-keys";
import type { ClusterIndex } from "./cluster-index";
import type { CustomResourceDefinition } from "./kube";

/** The one CRD discovery reads: Gateway API's HTTPRoute. */
export const HTTP_ROUTE_CRD = "httproutes.gateway.networking.k8s.io";
/** The HTTPRoute version meshplane writes, whose schema the API server checks its routes against. */
const WRITTEN_VERSION = "v1";
const BUNDLE_VERSION_ANNOTATION = "gateway.networking.k8s.io/bundle-version";
const CHANNEL_ANNOTATION = "gateway.networking.k8s.io/channel";

/** `value[key]` when `value` is a plain object holding `key` itself; undefined otherwise. */
function field(value: unknown, key: string): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  return Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;
}

/** Whether an OpenAPI v3 schema declares the property path `path` (objects by `properties`, arrays by `items`). */
export function declares(schema: unknown, path: readonly string[]): boolean {
  let node = schema;
  for (const step of path) {
    node = step === "[]" ? field(node, "items") : field(field(node, "properties"), step);
    if (node === undefined) return false;
  }
  return true;
}

/** An annotation worth reporting: a bounded label value, else left out (it is untrusted text). */
function annotation(crd: CustomResourceDefinition, key: string): string | undefined {
  const value = ownValue(crd.metadata.annotations, key);
  return value && labelValue.safeParse(value).success ? value : undefined;
}

/**
 * What a cluster's HTTPRoute CRD says of its Gateway API (docs/ambient.md#retries-and-the-crd-channel):
 * the bundle version and channel its annotations name, and whether its served `v1` schema declares
 * `spec.rules[].retry`. The schema decides, not the channel: the API server refuses a field its
 * schema does not declare, whatever the annotations say (a hand-edited or vendor-built CRD may keep
 * them). `{}` when the cluster has no HTTPRoute CRD.
 */
export function gatewayApiOf(crds: readonly CustomResourceDefinition[]): GatewayApiCrds {
  const crd = crds.find((c) => c.metadata.name === HTTP_ROUTE_CRD);
  if (crd === undefined) return {};
  const written = (crd.spec?.versions ?? []).find((v) => v.name === WRITTEN_VERSION && v.served === true);
  const bundleVersion = annotation(crd, BUNDLE_VERSION_ANNOTATION);
  const channel = annotation(crd, CHANNEL_ANNOTATION);
  return {
    httpRoute: {
      ...(bundleVersion === undefined ? {} : { bundleVersion }),
      ...(channel === undefined ? {} : { channel }),
      retry: declares(written?.schema?.openAPIV3Schema, ["spec", "rules", "[]", "retry"]),
    },
  };
}

/**
 * Returns `meshes` with `spec.istio.gatewayApi` on every Istio mesh (`gatewayApiOf` of the cluster's
 * CRDs): what the cluster's API server accepts in the HTTPRoutes translation writes for it. Left out
 * when the CRDs were not read (an older agent, or one its chart does not let read them): unknown.
 */
export function attachGatewayApi(index: ClusterIndex, meshes: readonly Mesh[]): Mesh[] {
  const crds = index.objects.customResourceDefinitions;
  if (crds === undefined) return [...meshes];
  const gatewayApi = gatewayApiOf(crds);
  return meshes.map((mesh) => (mesh.spec.istio === undefined ? mesh : { ...mesh, spec: { ...mesh.spec, istio: { ...mesh.spec.istio, gatewayApi } } }));
}
