/**
 * Runs the Istio judge (test/istio/judge, built by scripts/istio-judge.sh from the istio.io/istio Go
 * module): Istio's own config generation and CA code, asked what our generated objects do.
 */
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { AmbientMulticlusterInput } from "./ambient-multicluster-world";

const BUILD_SCRIPT = fileURLToPath(new URL("../../scripts/istio-judge.sh", import.meta.url));

let binary: string | undefined;

/** The judge binary, built on first use (the test script builds it before the suite runs). */
export function judgeBinary(): string {
  binary ??= execFileSync("bash", [BUILD_SCRIPT], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim();
  return binary;
}

export interface JudgeProxy {
  name: string;
  type: "sidecar" | "router";
  ip: string;
  namespace: string;
  labels: Record<string, string>;
  istioVersion?: string;
}

/** One istiod's world: its mesh config, the Istio objects it reads, its cluster's Kubernetes objects. */
export interface XdsInput {
  cluster: string;
  meshConfig: string;
  /** Multi-document YAML. */
  config: string;
  /** Multi-document YAML: Namespaces, Services, Pods, EndpointSlices. */
  kubernetes: string;
  proxies: JudgeProxy[];
}

/** Envoy resources as JSON (proto3 JSON mapping, camelCase field names). */
export type Envoy = Record<string, unknown>;

export interface ProxyConfig {
  listeners: Envoy[];
  clusters: Envoy[];
  routes: Envoy[];
  endpoints: Envoy[];
}

export interface XdsOutput {
  validation: { kind: string; namespace: string; name: string; error?: string; warning?: string }[];
  proxies: Record<string, ProxyConfig>;
}

export interface CaMesh {
  name: string;
  caCert: string;
  caKey: string;
  certChain: string;
  rootCert: string;
  /** SPIFFE ID of a workload istiod issues a certificate to. */
  workloadIdentity: string;
}

export interface CaOutput {
  meshes: Record<string, { error?: string; workloadCertChain?: string; rootBundle?: string }>;
  verify: { workload: string; trustBundle: string; ok: boolean; error?: string }[];
}

function run<T>(command: "xds" | "ambient" | "ambient-multicluster" | "ca", input: unknown, env: Record<string, string> = {}): T {
  const out = execFileSync(judgeBinary(), [command], {
    input: JSON.stringify(input),
    env: { ...process.env, ...env },
    encoding: "utf8",
    maxBuffer: 512 * 1024 * 1024,
    stdio: ["pipe", "pipe", "pipe"],
  });
  // The answer is the last line: anything a library prints before it is not ours.
  const parsed = JSON.parse(out.trimEnd().split("\n").at(-1) ?? "") as T & { error?: string };
  if (parsed.error !== undefined) throw new Error(`istio judge ${command}: ${parsed.error}`);
  return parsed;
}

/** The Envoy configuration istiod would send each proxy, and istiod's validation of every object. */
export function judgeXds(input: XdsInput): XdsOutput {
  return run<XdsOutput>("xds", input);
}

/** Loads each mesh's cacerts as istiod does, issues a workload certificate, verifies across meshes. */
export function judgeCa(meshes: CaMesh[]): CaOutput {
  return run<CaOutput>("ca", { meshes });
}

/**
 * One ambient istiod's world. The judge plays istio-cni (it marks the pods Istio's default
 * enablement selectors capture) and istiod's deployment controller (it programs every Gateway of
 * class `istio-waypoint` and gives it a Service on 15008 and a pod).
 */
export interface AmbientInput {
  cluster: string;
  meshConfig: string;
  /** Multi-document YAML: Istio and Gateway API objects. */
  config: string;
  /** Multi-document YAML: Namespaces (with `istio.io/dataplane-mode`), Services, Pods, EndpointSlices, waypoint Gateways. */
  kubernetes: string;
  istioVersion?: string;
}

/** What istiod tells ztunnel (proto3 JSON of `istio.workload.Address` and `istio.security.Authorization`). */
export interface ZtunnelView {
  addresses: Envoy[];
  authorizations: Envoy[];
  /** The status istiod writes on a policy ztunnel cannot enforce as written. */
  status: { policy: string; reason: string; message: string }[];
}

export interface AmbientOutput {
  validation: XdsOutput["validation"];
  /** `<namespace>/<pod>` of every pod the CNI agent captures. */
  enrolled: string[];
  ztunnel: ZtunnelView;
  /** `<namespace>/<name>` → the waypoint's Envoy configuration (routes: those inline in `main_internal`). */
  waypoints: Record<string, ProxyConfig>;
}

/** What istiod, with the ambient data plane on, tells ztunnel and each waypoint. */
export function judgeAmbient(input: AmbientInput): AmbientOutput {
  return run<AmbientOutput>("ambient", input);
}

/**
 * `judgeAmbient` with istiod's multi-network ambient multicluster on (`AMBIENT_ENABLE_MULTI_NETWORK`,
 * docs/ambient.md#ambient-multicluster): the `istio-east-west` GatewayClass and service scope exist.
 * The judge re-executes itself keeping its environment, so the flag reaches Istio at start.
 */
export function judgeAmbientMultiNetwork(input: AmbientInput): AmbientOutput {
  return run<AmbientOutput>("ambient", input, { AMBIENT_ENABLE_MULTI_NETWORK: "true" });
}

/** What one istiod of a multi-network ambient mesh tells ztunnel, and how the judge set up the clusters. */
export interface AmbientMulticlusterOutput {
  /** istiod's validation of the asked cluster's objects. */
  validation: XdsOutput["validation"];
  /** Per cluster, `<namespace>/<pod>` of every pod the CNI agent captures. */
  enrolled: Record<string, string[]>;
  /** `<cluster>/<namespace>/<name>` of every `istio-east-west` Gateway → the address the judge gave it. */
  eastWestGateways: Record<string, string>;
  /** What the asked istiod tells ztunnel in its own cluster, every cluster's services merged. */
  ztunnel: ZtunnelView;
}

/**
 * One istiod of a multi-primary, multi-network ambient mesh (docs/ambient.md#ambient-multicluster),
 * with PILOT_ENABLE_AMBIENT and AMBIENT_ENABLE_MULTI_NETWORK on: istiod's ambient index reads its own
 * cluster (`input.local`) and, through a remote secret each, the `remotes`. The judge stands in for
 * each cluster's istio-cni and istiod as `judgeAmbient` does, and for each cluster's istiod deploying
 * its east-west gateways: every Gateway of class `istio-east-west` gets an IP address in its status.
 * Build the input with ambient-multicluster-world.ts.
 */
export function judgeAmbientMulticluster(input: AmbientMulticlusterInput): AmbientMulticlusterOutput {
  return run<AmbientMulticlusterOutput>("ambient-multicluster", input);
}
