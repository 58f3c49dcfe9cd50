/**
 * The worlds of a multi-network ambient mesh as one istiod sees them, rebuilt from a translator input
 * (docs/ambient.md#ambient-multicluster): each cluster as ambient-world.ts builds it, with what the
 * multicluster install adds. The Istio namespace carries `topology.istio.io/network` with the network
 * discovery reported for the mesh (istiod reads every cluster's network from that label only), and
 * the Services an east-west gateway meshplane generated lists in `meshplane.dev/global-services` carry
 * `istio.io/global: "true"`, as the agent will label them. The asked istiod's mesh config gets the
 * `ambient` profile's `serviceScopeConfigs`, which make that label mean global.
 */
import { parseAllDocuments } from "yaml";
import type { TranslateInput, TranslateOutput } from "../../packages/core/src/translate/index";
import { ANNOTATION_GLOBAL_SERVICES, LABEL_GLOBAL, parseGlobalServices } from "../../packages/core/src/translate/index";
import { ambientWorld } from "./ambient-world";
import type { AmbientInput } from "./judge";
import { yamlDocs } from "./world";

const NETWORK_LABEL = "topology.istio.io/network";

/** The `ambient` profile's serviceScopeConfigs (manifests/helm-profiles/ambient.yaml in Istio). */
export const AMBIENT_SERVICE_SCOPES = `serviceScopeConfigs:
  - servicesSelector:
      matchExpressions:
        - {key: ${LABEL_GLOBAL}, operator: In, values: ["true"]}
    scope: GLOBAL
`;

/** A cluster the asked istiod reads through a remote secret: its Kubernetes objects and our objects for it. */
export interface RemoteClusterInput {
  cluster: string;
  /** Multi-document YAML: the objects generated for the cluster (its east-west Gateway is read from it). */
  config: string;
  /** Multi-document YAML, as AmbientInput's. */
  kubernetes: string;
}

/** One istiod of the mesh (`local`) and the clusters it has remote secrets for. */
export interface AmbientMulticlusterInput {
  local: AmbientInput;
  remotes: RemoteClusterInput[];
}

/** What to leave out of the world, to show what each piece is for. */
export interface WorldOmissions {
  /** No Service gets `istio.io/global`. */
  globalLabel?: boolean;
  /** No Istio namespace gets `topology.istio.io/network`. */
  networkLabel?: boolean;
  /** The east-west gateways meshplane generated lose their `topology.istio.io/network` label. */
  gatewayNetworkLabel?: boolean;
}

type Kube = { kind: string; metadata: { name: string; namespace?: string; labels?: Record<string, string> } };

/** The Services (`namespace/name`) the east-west gateways generated for `cluster` list as global. */
export function globalServicesOf(output: TranslateOutput, cluster: string): Set<string> {
  const listed = new Set<string>();
  for (const o of output.clusters[cluster]?.objects ?? []) {
    const text = o.kind === "Gateway" ? o.metadata.annotations?.[ANNOTATION_GLOBAL_SERVICES] : undefined;
    for (const s of text === undefined ? [] : (parseGlobalServices(text) ?? [])) listed.add(`${s.namespace}/${s.name}`);
  }
  return listed;
}

/** `output` with the network label taken off every generated east-west gateway. */
function withoutGatewayNetworks(output: TranslateOutput): TranslateOutput {
  const clusters = Object.fromEntries(
    Object.entries(output.clusters).map(([cluster, out]) => {
      const objects = out.objects.map((o) => {
        if (o.kind !== "Gateway" || o.metadata.labels?.[NETWORK_LABEL] === undefined) return o;
        const { [NETWORK_LABEL]: _network, ...labels } = o.metadata.labels;
        return { ...o, metadata: { ...o.metadata, labels } };
      });
      return [cluster, { ...out, objects }];
    }),
  );
  return { ...output, clusters };
}

function clusterWorld(input: TranslateInput, generated: TranslateOutput, cluster: string, omit: WorldOmissions, extraConfig: readonly object[]): AmbientInput {
  const output = omit.gatewayNetworkLabel === true ? withoutGatewayNetworks(generated) : generated;
  const world = ambientWorld(input, output, cluster, extraConfig);
  const mesh = input.meshes.find((m) => m.spec.cluster === cluster && m.spec.type === "istio");
  if (world === undefined || mesh === undefined) throw new Error(`${cluster} has no Istio mesh`);
  const network = mesh.spec.istio?.ambient?.multiNetwork?.network;
  const global = globalServicesOf(output, cluster);
  const kube = parseAllDocuments(world.kubernetes).map((d) => d.toJS() as Kube);
  for (const o of kube) {
    const { name, namespace } = o.metadata;
    if (o.kind === "Namespace" && name === mesh.spec.namespace && network !== undefined && omit.networkLabel !== true) {
      o.metadata.labels = { ...o.metadata.labels, [NETWORK_LABEL]: network };
    }
    if (o.kind === "Service" && global.has(`${namespace}/${name}`) && omit.globalLabel !== true) {
      o.metadata.labels = { ...o.metadata.labels, [LABEL_GLOBAL]: "true" };
    }
  }
  return { ...world, meshConfig: world.meshConfig + AMBIENT_SERVICE_SCOPES, kubernetes: yamlDocs(kube) };
}

/**
 * The ambient multicluster judge's input: istiod of `local`, with remote secrets for `remotes`, each
 * cluster's world from `input` and our objects from `output` (plus `extraConfig` in `local`'s),
 * less what `omit` names.
 */
export function ambientMulticlusterWorld(
  input: TranslateInput,
  output: TranslateOutput,
  local: string,
  remotes: readonly string[],
  omit: WorldOmissions = {},
  extraConfig: readonly object[] = [],
): AmbientMulticlusterInput {
  return {
    local: clusterWorld(input, output, local, omit, extraConfig),
    remotes: remotes.map((cluster) => {
      const world = clusterWorld(input, output, cluster, omit, []);
      return { cluster, config: world.config, kubernetes: world.kubernetes };
    }),
  };
}
