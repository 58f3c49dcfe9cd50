import type { Mesh } from "../../api/index";
import { apiVersionOf } from "./generated-kinds";

export interface IstioApiVersions {
  networking: string;
  security: string;
}

/** Istio's two API groups at one version (every kind of a group is generated in the same versions: tested). */
const istioAt = (version: string): IstioApiVersions => ({
  networking: apiVersionOf("VirtualService", version),
  security: apiVersionOf("AuthorizationPolicy", version),
});
const V1 = istioAt("v1");
const V1BETA1 = istioAt("v1beta1");

/** [major, minor] of an Istio version ("1.24.1", "1.22.0-beta.1", "v1.23"); undefined when unreadable. */
export function istioMinor(version: string): [number, number] | undefined {
  const match = /^v?(\d+)\.(\d+)/.exec(version);
  return match ? [Number(match[1]), Number(match[2])] : undefined;
}

function atLeast122(version: string): boolean {
  const parsed = istioMinor(version);
  if (parsed === undefined) return false;
  const [major, minor] = parsed;
  return major > 1 || (major === 1 && minor >= 22);
}

/**
 * The Istio API versions to generate for a cluster (docs/resources.md#agent-protocol): `v1` when
 * every Istio control plane in it is 1.22 or newer, else `v1beta1`. With several revisions in one
 * cluster (a canary upgrade) the oldest decides: CRDs are cluster-wide and v1beta1 is served by
 * every supported release, while an older istiod's CRDs may not serve v1. An unreadable version (a
 * digest, `latest`) counts as old for the same reason. `meshes` are the cluster's Istio meshes;
 * none gives v1beta1.
 */
export function istioApiVersions(meshes: readonly Mesh[]): IstioApiVersions {
  if (meshes.length === 0) return V1BETA1;
  return meshes.every((mesh) => atLeast122(mesh.spec.version)) ? V1 : V1BETA1;
}

/** The one version of each SMI group meshplane writes (docs/resources.md#agent-protocol pins them). */
export const SMI_API_VERSIONS = {
  split: apiVersionOf("TrafficSplit"),
  access: apiVersionOf("TrafficTarget"),
  specs: apiVersionOf("HTTPRouteGroup"),
} as const;
