/**
 * The lab's clusters moved to Istio's ambient data plane, as discovery sees one
 * (docs/ambient.md#what-discovery-sees): made from the sidecar fixtures the default lab seeds, so the
 * two labs hold the same Bookinfo. A namespace moved to ambient is labelled
 * `istio.io/dataplane-mode: ambient` and its pods lose what injection added (the containers, init
 * containers and volumes `sidecar.istio.io/status` lists) and carry the mark istio-cni leaves
 * (`ambient.istio.io/redirection: enabled`); ztunnel runs as a DaemonSet of the mesh's Istio version;
 * one waypoint Gateway is bound to one Service with `istio.io/use-waypoint`.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseAllDocuments, stringify } from "yaml";

export type KubeObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
} & Record<string, unknown>;

type Container = { name: string };
type PodSpec = { containers: Container[]; initContainers?: Container[]; volumes?: Container[]; nodeName?: string };

/** Where Istio runs in a cluster: the revision (`undefined` for the default) and the version of its istiod image. */
export interface IstioOf {
  revision: string | undefined;
  version: string;
}

/** The objects of a discovery fixture (`kubectl get -o yaml` documents). */
export function readFixture(path: string): KubeObject[] {
  return parseAllDocuments(readFileSync(path, "utf8"))
    .map((d) => d.toJS() as KubeObject | null)
    .filter((o): o is KubeObject => o !== null);
}

/** The fixture's istiod: its revision (`istio.io/rev`, `default` read as none) and the tag of its image. Throws when there is none. */
export function istioOf(objects: KubeObject[]): IstioOf {
  const istiod = objects.find((o) => o.kind === "Deployment" && o.metadata.labels?.app === "istiod");
  const image = ((istiod?.spec?.template as { spec: { containers: { image: string }[] } } | undefined)?.spec.containers[0]?.image ?? "").split(":")[1];
  if (!istiod || !image) throw new Error("the fixture has no istiod Deployment with a tagged image");
  const rev = istiod.metadata.labels?.["istio.io/rev"];
  return { revision: rev === "default" ? undefined : rev, version: image };
}

/** A pod (or pod template) without what sidecar injection added, as ztunnel's redirection leaves it. */
function withoutSidecar(pod: KubeObject): KubeObject {
  const { "sidecar.istio.io/status": injected, "istio.io/rev": _rev, ...annotations } = pod.metadata.annotations ?? {};
  if (!injected) return pod;
  const added = JSON.parse(injected) as { containers?: string[]; initContainers?: string[]; volumes?: string[] };
  const spec = pod.spec as PodSpec;
  const keep = (list: Container[] | undefined, drop: string[] = []) => list?.filter((c) => !drop.includes(c.name));
  const { "security.istio.io/tlsMode": _tls, ...labels } = pod.metadata.labels ?? {};
  const status = pod.status as { containerStatuses?: Container[]; initContainerStatuses?: Container[] } | undefined;
  return {
    ...pod,
    metadata: { ...pod.metadata, labels, annotations: { ...annotations, "ambient.istio.io/redirection": "enabled" } },
    spec: {
      ...spec,
      containers: keep(spec.containers, added.containers),
      ...(spec.initContainers ? { initContainers: keep(spec.initContainers, added.initContainers) } : {}),
      ...(spec.volumes ? { volumes: keep(spec.volumes, added.volumes) } : {}),
    },
    ...(status
      ? {
          status: {
            ...status,
            ...(status.containerStatuses ? { containerStatuses: keep(status.containerStatuses, added.containers) } : {}),
            ...(status.initContainerStatuses ? { initContainerStatuses: keep(status.initContainerStatuses, added.initContainers) } : {}),
          },
        }
      : {}),
  };
}

/**
 * `objects` with the namespaces `ambient` moved to the ambient data plane: each labelled
 * `istio.io/dataplane-mode: ambient` without its injection labels (`istio-injection`, `istio.io/rev`:
 * Istio's injection webhook matches either, so a pod created there would get a sidecar again, and a
 * sidecar wins), each pod in them without its sidecar. Other objects are returned as they are.
 */
export function toAmbient(objects: KubeObject[], ambient: string[]): KubeObject[] {
  return objects.map((o) => {
    if (o.kind === "Namespace" && ambient.includes(o.metadata.name)) {
      const { "istio-injection": _injection, "istio.io/rev": _rev, ...labels } = o.metadata.labels ?? {};
      return { ...o, metadata: { ...o.metadata, labels: { ...labels, "istio.io/dataplane-mode": "ambient" } } };
    }
    return o.kind === "Pod" && ambient.includes(o.metadata.namespace ?? "") ? withoutSidecar(o) : o;
  });
}

/** The label that puts an Istio object (ztunnel, a waypoint) in a revisioned mesh; none for the default revision. */
const revisionLabel = (istio: IstioOf): Record<string, string> => (istio.revision ? { "istio.io/rev": istio.revision } : {});

/** ztunnel's DaemonSet in istio-system, as Istio's chart installs it, for `istio`'s mesh and version. */
export function ztunnel(istio: IstioOf): KubeObject {
  const rev = revisionLabel(istio);
  return {
    apiVersion: "apps/v1",
    kind: "DaemonSet",
    metadata: { name: "ztunnel", namespace: "istio-system", labels: { app: "ztunnel", "app.kubernetes.io/name": "ztunnel", ...rev } },
    spec: {
      selector: { matchLabels: { app: "ztunnel" } },
      template: {
        metadata: { labels: { app: "ztunnel", "istio.io/dataplane-mode": "none", "sidecar.istio.io/inject": "false" } },
        spec: {
          serviceAccountName: "ztunnel",
          containers: [{ name: "istio-proxy", image: `docker.io/istio/ztunnel:${istio.version}-distroless`, args: ["proxy", "ztunnel"] }],
        },
      },
    },
  };
}

/**
 * A waypoint for services (`istioctl waypoint apply -n <namespace>` makes the same Gateway), in
 * `istio`'s mesh. No istiod runs in the lab to program it: `programWaypoint` (ambient-lab.ts) writes
 * what istiod's deployment controller would.
 */
export function waypoint(namespace: string, istio: IstioOf, name = "waypoint"): KubeObject {
  const rev = revisionLabel(istio);
  return {
    apiVersion: "gateway.networking.k8s.io/v1",
    kind: "Gateway",
    metadata: { name, namespace, labels: { "istio.io/waypoint-for": "service", ...rev } },
    spec: { gatewayClassName: "istio-waypoint", listeners: [{ name: "mesh", port: 15008, protocol: "HBONE" }] },
  };
}

/** `objects` with the Service `namespace/service` bound to the waypoint `name` (`istio.io/use-waypoint`). */
export function bindWaypoint(objects: KubeObject[], namespace: string, service: string, name = "waypoint"): KubeObject[] {
  return objects.map((o) =>
    o.kind === "Service" && o.metadata.namespace === namespace && o.metadata.name === service
      ? { ...o, metadata: { ...o.metadata, labels: { ...o.metadata.labels, "istio.io/use-waypoint": name } } }
      : o,
  );
}

/**
 * `objects` with `alias` in `meshConfig.trustDomainAliases` of `istio`'s mesh (its ConfigMap `istio`, or
 * `istio-<revision>`), as `istioctl --set meshConfig.trustDomainAliases[0]=<alias>` leaves it: the mesh
 * then accepts callers of that trust domain.
 */
export function trustDomainAlias(objects: KubeObject[], istio: IstioOf, alias: string): KubeObject[] {
  const name = istio.revision ? `istio-${istio.revision}` : "istio";
  return objects.map((o) => {
    const data = o.data as { mesh?: string } | undefined;
    if (o.kind !== "ConfigMap" || o.metadata.namespace !== "istio-system" || o.metadata.name !== name || data?.mesh === undefined) return o;
    return { ...o, data: { ...data, mesh: `${data.mesh.trimEnd()}\ntrustDomainAliases: [${alias}]\n` } };
  });
}

/**
 * The objects of namespace `namespace` of `from` (the Namespace included), moved to a cluster whose
 * nodes are `nodes`: each pod runs on one of them in turn, so locality reads the new cluster's.
 */
export function namespaceOf(from: KubeObject[], namespace: string, nodes: string[]): KubeObject[] {
  let next = 0;
  return from
    .filter((o) => o.metadata.namespace === namespace || (o.kind === "Namespace" && o.metadata.name === namespace))
    .map((o) => (o.kind === "Pod" && nodes.length ? { ...o, spec: { ...o.spec, nodeName: nodes[next++ % nodes.length] } } : o));
}

/** Writes `objects` as a multi-document YAML fixture in a new temp directory; returns its path. */
export function writeFixture(name: string, objects: KubeObject[]): string {
  const path = join(mkdtempSync(join(tmpdir(), "meshplane-lab-")), `${name}.yaml`);
  writeFileSync(path, objects.map((o) => `---\n${stringify(o)}`).join(""));
  return path;
}
