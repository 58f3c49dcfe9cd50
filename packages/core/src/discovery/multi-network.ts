import type { Mesh, MultiNetwork } from "../api/discovery";
import { ownValue } from "../own-keys";
import type { ClusterIndex } from "./cluster-index";
import { TRUE_VALUES, pilotContainer } from "./istio-mesh";
import type { Container } from "./kube";

/** The one environment variable of istiod discovery reads: whether ambient multi-network is on. */
export const AMBIENT_MULTI_NETWORK_ENV = "AMBIENT_ENABLE_MULTI_NETWORK";
/** The label on the control plane's namespace Istio reads a cluster's network from. */
export const NETWORK_LABEL = "topology.istio.io/network";

/**
 * `AMBIENT_ENABLE_MULTI_NETWORK` of istiod's discovery container as istiod reads it (Go's
 * strconv.ParseBool, false when unset or unparsable), from its literal `env` value only: `unknown`
 * when the value comes from elsewhere (`valueFrom`, or `envFrom` with no `env` entry to override it)
 * or names another variable (`$(VAR)`, which the kubelet expands). No other variable is looked at.
 */
export function multiNetworkFlag(container: Container): boolean | "unknown" {
  // The kubelet applies `envFrom` first, then `env` in order: the last entry of a name wins.
  const entry = (container.env ?? []).findLast((e) => e.name === AMBIENT_MULTI_NETWORK_ENV);
  if (entry === undefined) return (container.envFrom ?? []).length > 0 ? "unknown" : false;
  if (entry.valueFrom !== undefined) return "unknown";
  const value = entry.value ?? "";
  if (value.includes("$(")) return "unknown";
  return TRUE_VALUES.has(value);
}

/**
 * Returns `meshes` with `spec.istio.ambient.multiNetwork` on every Istio mesh whose ztunnel runs
 * (docs/ambient.md#ambient-multicluster): its istiod's `AMBIENT_ENABLE_MULTI_NETWORK`
 * (`multiNetworkFlag`) and the `topology.istio.io/network` label of its namespace, which is where
 * istiod reads its own cluster's network from (and a remote istiod the remote cluster's). Left out
 * when namespaces were not listed, or the mesh's Deployment is not among those listed: unknown.
 */
export function attachMultiNetwork(index: ClusterIndex, meshes: readonly Mesh[]): Mesh[] {
  if (index.objects.namespaces === undefined) return [...meshes];
  return meshes.map((mesh) => {
    const { istio, namespace, controller } = mesh.spec;
    if (istio?.ambient === undefined || controller === undefined) return mesh;
    const deployment = index.objects.deployments.find((d) => d.metadata.name === controller && (d.metadata.namespace ?? "") === namespace);
    const pilot = deployment === undefined ? undefined : pilotContainer(deployment);
    if (pilot === undefined) return mesh;
    const network = ownValue(index.namespaceLabels(namespace), NETWORK_LABEL);
    const multiNetwork: MultiNetwork = { enabled: multiNetworkFlag(pilot), ...(network ? { network } : {}) };
    return { ...mesh, spec: { ...mesh.spec, istio: { ...istio, ambient: { ...istio.ambient, multiNetwork } } } };
  });
}
