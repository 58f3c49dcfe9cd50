import { parse } from "yaml";
import type { Mesh } from "../api/discovery";
import { type ClusterIndex, byName, compareStrings } from "./cluster-index";
import { imageVersion } from "./images";
import type { Container, PodController } from "./kube";
import { discoveredName } from "./names";
import { type ReportProblem, describeObject } from "./report";

export const ISTIO_REV_LABEL = "istio.io/rev";
const DEFAULT_TRUST_DOMAIN = "cluster.local";

/**
 * The control-plane revision an istiod Deployment serves, or undefined for the default
 * (non-revisioned) one. Istio labels every istiod with `istio.io/rev` — `default` when it has no
 * revision — so the label wins; the `istiod-<revision>` name is the fallback for hand-made manifests.
 */
export function istiodRevision(deployment: PodController): string | undefined {
  const label = deployment.metadata.labels?.[ISTIO_REV_LABEL] ?? deployment.spec.template.metadata?.labels?.[ISTIO_REV_LABEL];
  if (label !== undefined) return label === "default" || label === "" ? undefined : label;
  const name = deployment.metadata.name;
  return name.startsWith("istiod-") && name.length > "istiod-".length ? name.slice("istiod-".length) : undefined;
}

/** istiod's discovery container: the one whose image is Istio's `pilot`. */
export function pilotContainer(deployment: PodController): Container | undefined {
  return deployment.spec.template.spec.containers.find((c) => c.image?.includes("pilot"));
}

/** Go's strconv.ParseBool truths, which is how istio-agent reads proxyMetadata values and istiod its boolean env. */
export const TRUE_VALUES = new Set(["1", "t", "T", "TRUE", "true", "True"]);

interface MeshConfigFacts {
  trustDomain: string;
  trustDomainAliases: string[];
  smartDnsProxyingEnabled: boolean;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string" && v !== "") : [];
}

/**
 * The other trust domains istiod accepts peers from, as Istio computes them for inbound TLS
 * validation: `trustDomainAliases` and the `trustDomains` of every `caCertificates` entry.
 */
function acceptedAliases(config: unknown, trustDomain: string): string[] {
  const fromCaCertificates = (Array.isArray(objectField(config, "caCertificates")) ? (objectField(config, "caCertificates") as unknown[]) : []).flatMap((c) =>
    strings(objectField(c, "trustDomains")),
  );
  const all = new Set([...strings(objectField(config, "trustDomainAliases")), ...fromCaCertificates]);
  all.delete(trustDomain);
  return [...all].sort(compareStrings);
}

function objectField(value: unknown, key: string): unknown {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
}

/**
 * Reads what discovery needs from a meshConfig YAML document. An empty document means "all defaults",
 * as it does to istiod. Returns an error message for text that is not a YAML mapping.
 */
export function readMeshConfig(text: string): MeshConfigFacts | { error: string } {
  let config: unknown;
  try {
    config = parse(text);
  } catch (error) {
    return { error: `meshConfig is not valid YAML: ${(error as Error).message.split("\n")[0]}` };
  }
  if (config !== null && config !== undefined && (typeof config !== "object" || Array.isArray(config))) {
    return { error: "meshConfig must be a YAML mapping" };
  }
  const configured = objectField(config, "trustDomain");
  const trustDomain = typeof configured === "string" && configured !== "" ? configured : DEFAULT_TRUST_DOMAIN;
  const dnsCapture = objectField(objectField(objectField(config, "defaultConfig"), "proxyMetadata"), "ISTIO_META_DNS_CAPTURE");
  return {
    trustDomain,
    trustDomainAliases: acceptedAliases(config, trustDomain),
    // An unquoted `true` is a YAML boolean; istiod would reject it, but it means what the user meant.
    smartDnsProxyingEnabled: dnsCapture === true || (typeof dnsCapture === "string" && TRUE_VALUES.has(dnsCapture)),
  };
}

/**
 * The Istio meshes of a cluster, one per istiod Deployment (docs/resources.md#discovery), with no
 * gateways yet (`attachGateways` adds them). An istiod without its `istio`/`istio-<revision>`
 * ConfigMap, or with meshConfig we cannot read, is skipped and reported: istiod itself cannot run
 * that way.
 */
export function discoverIstioMeshes(index: ClusterIndex, report: ReportProblem): Mesh[] {
  const meshes: Mesh[] = [];
  // Sorted so that problems are reported in the same order on every run.
  for (const deployment of index.objects.deployments.toSorted(byName)) {
    const { name, namespace = "" } = deployment.metadata;
    if (!name.startsWith("istiod")) continue;
    const pilot = pilotContainer(deployment);
    if (!pilot?.image) continue;
    const revision = istiodRevision(deployment);
    // istiod mounts exactly this ConfigMap (its chart names it after the revision).
    const configMapName = revision === undefined ? "istio" : `istio-${revision}`;
    const text = index.configMap(namespace, configMapName)?.data?.mesh;
    const object = describeObject("Deployment", namespace, name);
    if (text === undefined) {
      report({ object, message: `no ConfigMap ${namespace}/${configMapName} with key "mesh"; not treated as a mesh` });
      continue;
    }
    const facts = readMeshConfig(text);
    if ("error" in facts) {
      report({ object, message: `ConfigMap ${namespace}/${configMapName}: ${facts.error}; not treated as a mesh` });
      continue;
    }
    const podSpec = deployment.spec.template.spec;
    meshes.push({
      kind: "Mesh",
      metadata: { name: discoveredName({ name, namespace, cluster: index.cluster }), cluster: index.cluster },
      spec: {
        type: "istio",
        cluster: index.cluster,
        namespace,
        controller: name,
        version: imageVersion(pilot.image),
        istio: {
          ...(revision === undefined ? {} : { revision }),
          trustDomain: facts.trustDomain,
          ...(facts.trustDomainAliases.length > 0 ? { trustDomainAliases: facts.trustDomainAliases } : {}),
          istiodServiceAccount: podSpec.serviceAccountName || podSpec.serviceAccount || (revision === undefined ? "istiod" : `istiod-${revision}`),
          smartDnsProxyingEnabled: facts.smartDnsProxyingEnabled,
          gateways: [],
        },
      },
    });
  }
  return meshes.toSorted((a, b) => compareStrings(a.metadata.name, b.metadata.name));
}
