/**
 * A tenant worth looking at in the console, made only through the public API and the agent protocol:
 * two clusters' discovery (bookinfo on each, east-west gateways), a third on Istio's ambient data
 * plane (ztunnel, waypoints, ambient and sidecar workloads; not with `bulk`), a VirtualMesh
 * federating the first two, and policies in every state a user meets — ACCEPTED, INVALID (a
 * conflict and a bad reference), FAILED (an agent reports its object refused) — plus, on request,
 * more clusters with many destinations.
 */
import { type CertificateDirective, type CertificateResult, createCsr, discover, fingerprintSha256, generateKeyPair, splitPemBundle } from "@meshplane/core";
import { join } from "node:path";
import { ControlPlaneClient } from "../../packages/agent/src/control-plane/client";
import { loadCluster } from "../discovery/load-cluster";
import { FIXTURES, agentKey } from "./agents";
import { ambientDiscovery, istioMesh } from "./ambient-discovery";

export interface SeededTenant {
  tenant: string;
  adminToken: string;
  /** Destinations of the bulk cluster, when asked for. */
  bulk: number;
}

async function call(url: string, token: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(url + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

async function agentFor(url: string, adminToken: string, tenant: string, cluster: string): Promise<ControlPlaneClient> {
  const { bootstrapToken } = (await call(url, adminToken, "POST", "/v1/clusters", { name: cluster })) as { bootstrapToken: string };
  const key = await agentKey();
  await ControlPlaneClient.register(url, bootstrapToken, key.publicJwk, "console-seed");
  return new ControlPlaneClient({ url, tenant, cluster, key, now: () => new Date() });
}

const BULK_PER_CLUSTER = 1000;
/** The seeded cluster whose mesh runs the ambient data plane (test/support/ambient-discovery.ts). */
export const AMBIENT_CLUSTER = "cluster-ambient";

/** `count` services (numbered from `first`) in namespace `apps` of `cluster`, each with one workload, all in one mesh. */
function bulkDiscovery(cluster: string, first: number, count: number) {
  const mesh = `istiod-istio--system-${cluster}`;
  const meshes = [istioMesh(mesh, cluster)];
  const workloads = [];
  const destinations = [];
  for (let i = first; i < first + count; i++) {
    const app = `svc-${String(i).padStart(5, "0")}`;
    workloads.push({
      kind: "Workload",
      metadata: { name: `${app}-apps-${cluster}-deployment`, cluster },
      spec: { kind: "Deployment", name: app, namespace: "apps", cluster, mesh, labels: { app }, serviceAccount: app },
    });
    destinations.push({
      kind: "Destination",
      metadata: { name: `${app}-apps-${cluster}`, cluster },
      spec: {
        name: app,
        namespace: "apps",
        cluster,
        mesh,
        labels: { app },
        selector: { app },
        ports: [{ name: "http", port: 8080, protocol: "TCP", targetPort: 8080 }],
        subsets: {},
        endpoints: [{ ip: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, labels: { app }, sidecar: "istio" }],
        workloads: [`${app}-apps-${cluster}-deployment`],
      },
    });
  }
  return { meshes, workloads, destinations, hash: `bulk-${count}` };
}

const doc = (kind: string, name: string, spec: Record<string, unknown>) => ({ apiVersion: "meshplane.dev/v1", kind, metadata: { name }, spec });

export const SEED_DOCUMENTS = [
  doc("VirtualMesh", "global", {
    meshes: [{ name: "istiod-istio--system-cluster-east" }, { name: "istiod-istio--system-cluster-west" }],
    mtlsConfig: { shared: { rootCertificateAuthority: { generated: {} } } },
    federation: { selectors: [{ destinationSelectors: [{ kubeServiceMatcher: { namespaces: ["bookinfo"] } }] }], hostnameSuffix: "global" },
    globalAccessPolicy: "ENABLED",
  }),
  doc("TrafficPolicy", "reviews-timeout", {
    destinationSelector: [{ kubeServiceRefs: { services: [{ name: "reviews", namespace: "bookinfo", cluster: "cluster-east" }] } }],
    policy: { requestTimeout: "3s", retries: { attempts: 3, perTryTimeout: "1s" } },
  }),
  // Sets the same field as reviews-timeout with another value, later: INVALID on that destination.
  doc("TrafficPolicy", "reviews-timeout-override", {
    destinationSelector: [{ kubeServiceRefs: { services: [{ name: "reviews", namespace: "bookinfo", cluster: "cluster-east" }] } }],
    policy: { requestTimeout: "10s" },
  }),
  // Shifts traffic to a cluster that has no such service: INVALID, with the reason in words.
  doc("TrafficPolicy", "ratings-canary", {
    destinationSelector: [{ kubeServiceRefs: { services: [{ name: "ratings", namespace: "bookinfo", cluster: "cluster-west" }] } }],
    policy: { trafficShift: { destinations: [{ kubeService: { name: "ratings-v9", namespace: "bookinfo", cluster: "cluster-west" }, weight: 100 }] } },
  }),
  doc("TrafficPolicy", "details-faults", {
    destinationSelector: [{ kubeServiceRefs: { services: [{ name: "details", namespace: "bookinfo", cluster: "cluster-west" }] } }],
    policy: { faultInjection: { fixedDelay: "2s", percentage: 10 } },
  }),
  doc("AccessPolicy", "bookinfo-reads", {
    sourceSelector: [{ kubeIdentityMatcher: { namespaces: ["bookinfo"] } }],
    destinationSelector: [{ kubeServiceMatcher: { namespaces: ["bookinfo"] } }],
    allowedMethods: ["GET"],
  }),
];

/** What the agent's certificate stage does for a directive: a key, a CSR, the signed chain, a report. */
async function issue(agent: ControlPlaneClient, d: CertificateDirective): Promise<CertificateResult> {
  const keyPair = await generateKeyPair(globalThis.crypto, d.keyAlgorithm);
  const answer = await agent.csr({ mesh: d.mesh, csr: await createCsr(globalThis.crypto, { keyPair, spiffeId: d.identity }) });
  return {
    mesh: d.mesh,
    state: "issued",
    issuer: answer.issuer,
    trustBundle: splitPemBundle(answer.rootBundle).map(fingerprintSha256).sort(),
    notAfter: answer.notAfter,
  };
}

/** Waits until the tenant's statuses say translation has caught up with every write. */
async function settled(url: string, token: string, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const lists = await Promise.all(["virtualmeshes", "trafficpolicies", "accesspolicies"].map((p) => call(url, token, "GET", `/v1/${p}?limit=500`)));
    const items = lists.flatMap(
      (l) => (l as { items: { kind: string; metadata: { generation?: number }; status?: { state: string; observedGeneration?: number } }[] }).items,
    );
    // A VirtualMesh with shared trust waits for each agent's CSR, which this seed does not send.
    if (items.every((i) => i.status && (i.status.state !== "PENDING" || i.kind === "VirtualMesh") && i.status.observedGeneration === i.metadata.generation))
      return;
    if (Date.now() > deadline) throw new Error(`translation did not settle: ${JSON.stringify(items.map((i) => i.status?.state))}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Seeds tenant `tenant` on the control plane at `url` (operator credential `operatorToken`). With
 * `bulk`, a third cluster reports that many destinations.
 */
export async function seedConsoleTenant(url: string, operatorToken: string, tenant: string, options: { bulk?: number } = {}): Promise<SeededTenant> {
  const { adminToken } = (await call(url, operatorToken, "POST", "/v1/tenants", { name: tenant })) as { adminToken: string };
  const agents: Record<string, ControlPlaneClient> = {};
  for (const cluster of ["cluster-east", "cluster-west"]) {
    agents[cluster] = await agentFor(url, adminToken, tenant, cluster);
    const found = discover(loadCluster(join(FIXTURES, "istio-bookinfo.yaml"), cluster));
    await agents[cluster].discovery({ ...found, hash: `seed-${cluster}` } as never);
  }
  // A third cluster runs Istio's ambient data plane: ztunnel, waypoints, ambient and sidecar workloads
  // (not beside the bulk clusters, whose tenant keeps its counted destinations and clusters).
  if (!options.bulk) {
    agents[AMBIENT_CLUSTER] = await agentFor(url, adminToken, tenant, AMBIENT_CLUSTER);
    await agents[AMBIENT_CLUSTER].discovery(ambientDiscovery(AMBIENT_CLUSTER) as never);
  }
  // An agent's discovery report is at most 5 MiB (about 2,000 services with their workloads), so
  // many destinations come from several clusters, as they would.
  for (let start = 0, n = 1; start < (options.bulk ?? 0); start += BULK_PER_CLUSTER, n++) {
    const cluster = `bulk-${String(n).padStart(2, "0")}`;
    const bulk = await agentFor(url, adminToken, tenant, cluster);
    await bulk.discovery(bulkDiscovery(cluster, start, Math.min(BULK_PER_CLUSTER, (options.bulk ?? 0) - start)) as never);
  }
  await call(url, adminToken, "POST", "/v1/apply", { documents: SEED_DOCUMENTS });
  await settled(url, adminToken);

  // Each agent fetches its snapshot and reports it applied; west says its fault-injection object was
  // refused. East's agent issues its mesh's intermediate CA (west's has not yet: its trust stays PENDING).
  for (const [cluster, agent] of Object.entries(agents)) {
    const snapshot = (await call(url, adminToken, "GET", `/v1/clusters/${cluster}/snapshot`)) as {
      generation: number;
      objects: { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; annotations?: Record<string, string> } }[];
      certificates?: CertificateDirective[];
    };
    const certificates = cluster === "cluster-east" ? await Promise.all((snapshot.certificates ?? []).map((d) => issue(agent, d))) : [];
    const results = snapshot.objects.map((o) => {
      const refused =
        cluster === "cluster-west" && o.kind === "VirtualService" && (o.metadata.annotations?.["meshplane.dev/parents"] ?? "").includes("details-faults");
      return {
        apiVersion: o.apiVersion,
        kind: o.kind,
        name: o.metadata.name,
        ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}),
        state: refused ? "failed" : "applied",
        ...(refused
          ? { error: 'admission webhook "validation.istio.io" denied the request: configuration is invalid: fault delay percentage must be in range [0, 100]' }
          : {}),
      };
    });
    await agent.status({ generation: snapshot.generation, results, ...(certificates.length > 0 ? { certificates } : {}) } as never);
  }
  await settled(url, adminToken);
  return { tenant, adminToken, bulk: options.bulk ?? 0 };
}
