import type { Gateway, Mesh, VirtualMeshSpec } from "../../api/index";
import { matchesPlacement } from "../input/placement-index";

type GatewaySelection = NonNullable<NonNullable<VirtualMeshSpec["federation"]>["eastWestGateways"]>;

function selected(mesh: Mesh, gateway: Gateway, selection: GatewaySelection): boolean {
  const cluster = mesh.spec.cluster;
  return selection.some(({ destinationSelector, portName }) => {
    if (portName !== undefined && portName !== gateway.tlsPortName) return false;
    const refs = destinationSelector.kubeServiceRefs?.services ?? [];
    if (refs.some((r) => r.cluster === cluster && r.namespace === gateway.namespace && r.name === gateway.name)) return true;
    const matcher = destinationSelector.kubeServiceMatcher;
    // Discovery reports a gateway's pod selector, not its Service labels; matcher labels are
    // compared with that selector, which is what `istio: eastwestgateway` selectors name anyway.
    return matcher !== undefined && matchesPlacement({ cluster, namespace: gateway.namespace, labels: gateway.selector }, matcher);
  });
}

/**
 * The east-west gateways federated traffic into `mesh` enters through: its discovered `eastwest`
 * gateways that have an address, narrowed by the VirtualMesh's `eastWestGateways` when it sets any
 * (a gateway qualifies when an entry selects its Service and, if the entry names a port, its TLS port
 * has that name). Sorted by namespace then name.
 */
export function eastWestGateways(mesh: Mesh, selection: GatewaySelection | undefined): Gateway[] {
  return (mesh.spec.istio?.gateways ?? [])
    .filter((g) => g.kind === "eastwest" && g.addresses.some((a) => a.ip || a.hostname))
    .filter((g) => selection === undefined || selection.length === 0 || selected(mesh, g, selection))
    .sort((a, b) => (a.namespace === b.namespace ? (a.name < b.name ? -1 : 1) : a.namespace < b.namespace ? -1 : 1));
}
