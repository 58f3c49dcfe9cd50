/**
 * Policies from Git, as `npm run lab` shows them (docs/gitops.md#try-it): a TrafficPolicy applied with
 * `kubectl apply` into one lab cluster is stored by the control plane as that cluster's, configures
 * both clusters, and its custom resource turns Ready; deleting it removes it everywhere. The same story
 * runs in test/e2e/authoring.test.ts, so `npm test` holds what the lab prints.
 */
import type { LabAgent } from "../e2e/lab-agents";
import { eventually } from "../e2e/lab-agents";
import type { ControlPlane } from "../support/control-plane";

export interface GitopsStoryParts {
  cp: Pick<ControlPlane, "request">;
  admin: string;
  /** The cluster the custom resource is applied into, and the other one. */
  author: LabAgent;
  other: LabAgent;
  /** The namespace the custom resource is applied in. */
  namespace: string;
  /** A service of each cluster (in `author`'s cluster, then in `other`'s) that the policy names. */
  services: [ServiceRef, ServiceRef];
  say: (text: string) => void;
}

interface ServiceRef {
  cluster: string;
  namespace: string;
  name: string;
}

interface Cr {
  metadata: { generation: number; finalizers?: string[] };
  status?: { observedGeneration?: number; conditions?: { type: string; status: string; reason: string; message: string }[]; meshplane?: { name?: string } };
}

const NAME = "lab-timeout";
const TIMEOUT = "7s";
const ready = (cr: Cr | undefined) => cr?.status?.conditions?.find((c) => c.type === "Ready");

/** What a user would keep in Git: the same document `meshplane apply` takes, applied with kubectl. */
export function labPolicy(namespace: string, services: readonly ServiceRef[]): Record<string, unknown> {
  return {
    apiVersion: "meshplane.dev/v1",
    kind: "TrafficPolicy",
    metadata: { name: NAME, namespace, labels: { "app.kubernetes.io/managed-by": "git" } },
    spec: { destinationSelector: [{ kubeServiceRefs: { services } }], policy: { requestTimeout: TIMEOUT } },
  };
}

type Routed = { metadata: { annotations?: Record<string, string> }; spec: { http?: { timeout?: string }[]; rules?: { timeouts?: { request?: string } }[] } };

/**
 * The request timeouts of what the policy made in `namespace` of a cluster, from its kube-apiserver:
 * VirtualServices, or HTTPRoutes where the mesh's output API is the Gateway API (docs/ambient.md#the-output-api).
 */
async function timeouts(agent: LabAgent, namespace: string, author: string, policyNamespace: string): Promise<string[] | undefined> {
  const lists = await Promise.all(
    [`/apis/networking.istio.io/v1/namespaces/${namespace}/virtualservices`, `/apis/gateway.networking.k8s.io/v1/namespaces/${namespace}/httproutes`].map(
      (path) => agent.cluster.request<{ items: Routed[] }>("GET", path),
    ),
  );
  if (lists.some((res) => !res.ok)) return undefined;
  return lists
    .flatMap((res) => res.body.items)
    .filter((o) => (o.metadata.annotations?.["meshplane.dev/parents"] ?? "").includes(`${NAME}.${policyNamespace}.${author}`))
    .flatMap((o) => [...(o.spec.http ?? []).map((route) => route.timeout), ...(o.spec.rules ?? []).map((rule) => rule.timeouts?.request)])
    .filter((t): t is string => t !== undefined);
}

/**
 * Runs the story and says what happens at each step: apply, stored with its source, the timeout in
 * both clusters, Ready, deleted everywhere. Throws when a step does not come to pass.
 */
export async function gitopsStory(parts: GitopsStoryParts): Promise<{ storedName: string }> {
  const { cp, admin, author, other, namespace, services, say } = parts;
  const path = `/apis/meshplane.dev/v1/namespaces/${namespace}/trafficpolicies`;
  const storedName = `${NAME}.${namespace}.${author.name}`;
  const where = [author, other].map((agent, i) => ({ agent, service: services[i] as ServiceRef }));
  const made = (agent: LabAgent, service: ServiceRef) => timeouts(agent, service.namespace, author.name, namespace);
  say(`\nPolicies from Git (docs/gitops.md#try-it)`);
  // By default a cluster authors for itself alone (docs/gitops.md#grants): a tenant admin widens it.
  const grant = await cp.request("PUT", `/v1/clusters/${author.name}/authoring`, {
    token: admin,
    body: { kinds: ["TrafficPolicy", "AccessPolicy"], clusters: [author.name, other.name] },
  });
  if (!grant.ok) throw new Error(`grant ${author.name}: ${grant.status}`);
  say(`  meshplane cluster grant ${author.name} --clusters ${author.name},${other.name}   (a tenant admin lets it author for both)`);
  say(
    `  kubectl apply into ${author.name}: TrafficPolicy ${namespace}/${NAME}, timeout ${TIMEOUT} for ${services.map((s) => `${s.cluster}/${s.namespace}/${s.name}`).join(" and ")}`,
  );
  const created = await author.cluster.request("POST", path, labPolicy(namespace, services));
  if (!created.ok) throw new Error(`kubectl apply into ${author.name}: ${created.status} ${JSON.stringify(created.body)}`);

  const stored = await eventually(`${storedName} stored`, async () => {
    const res = await cp.request("GET", `/v1/trafficpolicies/${storedName}`, { token: admin });
    return res.status === 200 ? ((await res.json()) as { metadata: { source: Record<string, unknown> } }) : undefined;
  });
  say(`  the control plane holds it as ${storedName}, source ${JSON.stringify(stored.metadata.source)}`);

  for (const { agent, service } of where) {
    await eventually(`the timeout in ${agent.name}`, async () => ((await made(agent, service))?.includes(TIMEOUT) ? true : undefined));
    say(`  ${agent.name}: its agent applied the route for ${service.name} (VirtualService or HTTPRoute, as its mesh takes) with timeout ${TIMEOUT}`);
  }

  const cr = await eventually(`${NAME} Ready in ${author.name}`, async () => {
    const res = await author.cluster.request<Cr>("GET", `${path}/${NAME}`);
    const c = res.ok ? res.body : undefined;
    return ready(c)?.status === "True" && c?.status?.observedGeneration === c?.metadata.generation ? c : undefined;
  });
  const condition = ready(cr);
  say(`  kubectl get trafficpolicy ${NAME} -n ${namespace} in ${author.name}: Ready ${condition?.status} (${condition?.reason}: ${condition?.message})`);

  await author.cluster.request("DELETE", `${path}/${NAME}`);
  await eventually(`${NAME} deleted everywhere`, async () => {
    const [left, held] = await Promise.all([
      author.cluster.request("GET", `${path}/${NAME}`),
      cp.request("GET", `/v1/trafficpolicies/${storedName}`, { token: admin }),
    ]);
    if (left.status !== 404 || held.status !== 404) return undefined;
    for (const { agent, service } of where) if ((await made(agent, service))?.length !== 0) return undefined;
    return true;
  });
  say(`  kubectl delete: its finalizer held it until the control plane had deleted ${storedName}; neither cluster keeps its timeout`);
  await cp.request("DELETE", `/v1/clusters/${author.name}/authoring`, { token: admin });
  return { storedName };
}
