import type { Container, PodSpec, StringMap } from "./kube";

export type SidecarType = "istio" | "osm";

const ISTIO_STATUS_ANNOTATION = "sidecar.istio.io/status";
const ISTIO_INJECT = "sidecar.istio.io/inject";
const ISTIO_REV = "istio.io/rev";
const OSM_INJECTION = "openservicemesh.io/sidecar-injection";
const OSM_MONITORED_BY = "openservicemesh.io/monitored-by";

function isIstioProxy(container: Container): boolean {
  return container.image?.includes("proxyv2") === true || container.image?.includes("istio-proxy") === true;
}

/**
 * The sidecar a pod runs (docs/resources.md#discovery), or undefined. Istio: a container whose
 * image is the proxy, or a native-sidecar init container (restartPolicy Always) — not the plain
 * `istio-init` init container, which uses the same image but only sets up iptables — or the
 * injector's status annotation. OSM: an `envoy` container next to the `osm-init` init container.
 * Istio is checked first.
 */
export function podSidecar(pod: { metadata: { annotations?: StringMap }; spec: PodSpec }): SidecarType | undefined {
  const { containers, initContainers = [] } = pod.spec;
  const nativeSidecars = initContainers.filter((c) => c.restartPolicy === "Always");
  if (pod.metadata.annotations?.[ISTIO_STATUS_ANNOTATION] !== undefined) return "istio";
  if ([...containers, ...nativeSidecars].some(isIstioProxy)) return "istio";
  const hasEnvoy = [...containers, ...nativeSidecars].some((c) => c.name === "envoy");
  if (hasEnvoy && initContainers.some((c) => c.name === "osm-init")) return "osm";
  return undefined;
}

/** What a pod template and its namespace say about injection; the inputs of `intendedSidecar`. */
export interface InjectionContext {
  templateLabels: StringMap;
  templateAnnotations: StringMap;
  namespaceLabels: StringMap;
  namespaceAnnotations: StringMap;
}

/**
 * The sidecar a pod created from this template would get, judged as the injection webhooks would:
 * used for controllers scaled to zero, which have no pod to look at. Istio: namespace labelled
 * `istio-injection=enabled` or `istio.io/rev`, or template labelled `sidecar.istio.io/inject: "true"`
 * or `istio.io/rev`; an explicit `"false"` on the template or `istio-injection=disabled` on the
 * namespace wins. OSM: namespace monitored (`openservicemesh.io/monitored-by`) or annotated
 * `openservicemesh.io/sidecar-injection: enabled`, unless the template disables it.
 */
export function intendedSidecar(context: InjectionContext): SidecarType | undefined {
  const { templateLabels: labels, templateAnnotations: annotations, namespaceLabels: nsLabels } = context;
  const optOut = labels[ISTIO_INJECT] === "false" || annotations[ISTIO_INJECT] === "false";
  const nsInjection = nsLabels["istio-injection"];
  const istio =
    nsInjection === "enabled" ||
    (nsInjection !== "disabled" && (nsLabels[ISTIO_REV] !== undefined || labels[ISTIO_INJECT] === "true" || labels[ISTIO_REV] !== undefined));
  if (istio && !optOut) return "istio";

  const osmOptOut = annotations[OSM_INJECTION] === "disabled";
  const osm = context.namespaceAnnotations[OSM_INJECTION] === "enabled" || nsLabels[OSM_MONITORED_BY] !== undefined;
  return osm && !osmOptOut ? "osm" : undefined;
}

/**
 * The first `istio.io/rev` among `maps`, most specific first (the pod's annotation the injector
 * wrote, the pod's labels, its template's, its namespace's). Undefined when none names one.
 */
export function requestedRevision(...labelMaps: (StringMap | undefined)[]): string | undefined {
  for (const labels of labelMaps) {
    const revision = labels?.[ISTIO_REV];
    if (revision !== undefined) return revision;
  }
  return undefined;
}
