/**
 * A TrafficPolicy whose calls rely on federation is ACCEPTED on a destination only where its
 * VirtualMesh can carry them (docs/translation.md, "Policies that rely on federation"): every way the
 * VirtualMesh can fail them — trust domains refused (either way round), shared trust PENDING or
 * FAILED, a mesh refused membership or without an east-west gateway — against a canary to another
 * cluster, a mirror, and a policy whose callers reach the destination only through federation. The
 * statuses name the VirtualMesh and the reason, a held-back policy is applied nowhere on the
 * destination, and the incremental translator agrees with a fresh one as trust comes and goes.
 */
import { describe, expect, it } from "vitest";
import type { KubeObject, ResourceStatus } from "@meshplane/core";
import { Translator, translate, type TranslateInput } from "../../packages/core/src/translate/index";
import { buildInput, type TenantDescription } from "./tenant";

const ROOT = "sha256:d0b6b951d313294318002dfa2c33f529a0d58113d36dc35e0a83bb1e0f8638ec";
const GATEWAY = (ip: string) => ({
  kind: "eastwest",
  name: "istio-eastwestgateway",
  namespace: "istio-system",
  selector: { istio: "eastwestgateway" },
  tlsPortName: "tls",
  externalPort: 15443,
  containerPort: 15443,
  addresses: [{ ip }],
});
const REVIEWS_1 = { cluster: "cluster-1", namespace: "bookinfo", name: "reviews" };
const REVIEWS_2 = { cluster: "cluster-2", namespace: "bookinfo", name: "reviews" };
const REMOTE_HOST = "reviews.bookinfo.svc.cluster-2.global";

type Description = Omit<TenantDescription, "clusters"> & {
  clusters: Record<string, { meshes: Record<string, unknown>[]; workloads: unknown[]; services: unknown[] }>;
};

function issued(mesh: string) {
  return { mesh, state: "issued" as const, issuer: ROOT, trustBundle: [ROOT], notAfter: "2024-04-01T00:00:00Z" };
}

/** Two clusters, each with reviews, joined by a VirtualMesh with shared trust, both meshes issued. Mesh names are written `@<cluster>`. */
function base(): Description {
  return {
    clusters: {
      "cluster-1": {
        meshes: [{ trustDomain: "cluster-1.local", trustDomainAliases: ["cluster-2.local"], gateways: [GATEWAY("34.1.1.1")] }],
        workloads: [
          { name: "reviews-v1", namespace: "bookinfo", labels: { app: "reviews", version: "v1" } },
          { name: "reviews-v2", namespace: "bookinfo", labels: { app: "reviews", version: "v2" } },
        ],
        services: [{ name: "reviews", namespace: "bookinfo" }],
      },
      "cluster-2": {
        meshes: [{ trustDomain: "cluster-2.local", trustDomainAliases: ["cluster-1.local"], gateways: [GATEWAY("34.2.2.2")] }],
        workloads: [{ name: "reviews-v3", namespace: "bookinfo", labels: { app: "reviews", version: "v3" } }],
        services: [{ name: "reviews", namespace: "bookinfo" }],
      },
    },
    virtualMeshes: [
      {
        name: "bookinfo-mesh",
        spec: { meshes: [{ name: "@cluster-1" }, { name: "@cluster-2" }], mtlsConfig: { shared: {} }, federation: { selectors: [{}] } },
      },
    ],
    trafficPolicies: [],
    trust: { "bookinfo-mesh": { issuer: ROOT, rootFingerprint: ROOT, rootNotAfter: "2034-01-01T00:00:00Z", trustBundle: [ROOT], phase: "STABLE" } },
    certificates: { "cluster-1": [issued("@cluster-1")], "cluster-2": [issued("@cluster-2")] },
  };
}

/** `canary`: 80 % to reviews v1 in cluster-1, 20 % to reviews in cluster-2. */
function canary(from = REVIEWS_1, to = REVIEWS_2) {
  return {
    name: "canary",
    spec: {
      destinationSelector: [{ kubeServiceRefs: { services: [from] } }],
      policy: {
        trafficShift: {
          destinations: [
            { kubeService: { ...from, ...(from === REVIEWS_1 ? { subset: { version: "v1" } } : {}) }, weight: 80 },
            { kubeService: to, weight: 20 },
          ],
        },
      },
    },
  };
}

function timeout(on = REVIEWS_1, sourceSelector?: { kubeWorkloadMatcher: { clusters: string[] } }[]) {
  return {
    name: "timeout",
    spec: { ...(sourceSelector ? { sourceSelector } : {}), destinationSelector: [{ kubeServiceRefs: { services: [on] } }], policy: { requestTimeout: "3s" } },
  };
}

/** The translator input, with `@<cluster>` replaced by the name discovery gives that cluster's mesh. */
function inputOf(d: Description): TranslateInput {
  const meshes = buildInput({ clusters: d.clusters } as TenantDescription).meshes;
  const text = JSON.stringify(d).replaceAll(/"@(cluster-\d)"/g, (_, cluster: string) =>
    JSON.stringify(meshes.find((m) => m.spec.cluster === cluster)?.metadata.name),
  );
  return buildInput(JSON.parse(text) as TenantDescription);
}

function scenario(change: (d: Description) => void): TranslateInput {
  const d = base();
  change(d);
  return inputOf(d);
}

function meshName(input: TranslateInput, cluster: string): string {
  return input.meshes.find((m) => m.spec.cluster === cluster)?.metadata.name as string;
}

function status(input: TranslateInput, policy: string): ResourceStatus {
  return translate(input).statuses[`TrafficPolicy/${policy}`] as ResourceStatus;
}

function reviewsIn(s: ResourceStatus, cluster: string): { state: string; errors?: string[] } {
  const entry = Object.entries(s.destinations ?? {}).find(([name]) => name.startsWith("reviews") && name.includes(cluster));
  return entry?.[1] as { state: string; errors?: string[] };
}

/** Whether cluster-1's VirtualServices send anything to cluster-2's reviews. */
function routesToRemote(input: TranslateInput, cluster = "cluster-1", host = REMOTE_HOST): boolean {
  const objects: KubeObject[] = translate(input).clusters[cluster]?.objects ?? [];
  return objects.some((o) => o.kind === "VirtualService" && JSON.stringify(o.spec).includes(`"host":"${host}"`));
}

/** `cluster`'s mesh lists no trust domain alias: it refuses the other cluster's callers. */
function refusing(d: Description, cluster: string): void {
  delete d.clusters[cluster]?.meshes[0]?.trustDomainAliases;
}

describe("TrafficPolicies whose calls a VirtualMesh cannot carry", () => {
  it("shared trust issued and trust domains aliased both ways: the canary is ACCEPTED and routes to cluster-2", () => {
    const input = scenario((d) => d.trafficPolicies?.push(canary()));
    expect(status(input, "canary").state).toBe("ACCEPTED");
    expect(routesToRemote(input)).toBe(true);
  });

  it("the reported case: trust domains refusing each other keep the canary from being ACCEPTED, naming the VirtualMesh, the refusal and the setting to add", () => {
    const input = scenario((d) => {
      refusing(d, "cluster-1");
      refusing(d, "cluster-2");
      d.trafficPolicies?.push(canary());
    });
    const s = status(input, "canary");
    expect(s.state).toBe("INVALID");
    const entry = reviewsIn(s, "cluster-1");
    expect(entry.state).toBe("INVALID");
    expect(entry.errors).toEqual([
      expect.stringMatching(
        new RegExp(
          `^trafficShift destination cluster-2/bookinfo/reviews: calls to it from mesh ${meshName(input, "cluster-1")} fail at the TLS handshake: VirtualMesh bookinfo-mesh is INVALID for mesh ${meshName(input, "cluster-2")}: .*refuse callers from cluster-1\\.local at the TLS handshake; add cluster-1\\.local to meshConfig\\.trustDomainAliases .*--set meshConfig\\.trustDomainAliases\\[0\\]=cluster-1\\.local\\)$`,
        ),
      ),
    ]);
    // Applied nowhere on reviews: cluster-1's callers keep their working local route.
    expect(routesToRemote(input)).toBe(false);
    // Consistent with the VirtualMesh, which is INVALID for the refusing mesh.
    expect(translate(input).statuses["VirtualMesh/bookinfo-mesh"]?.state).toBe("INVALID");
  });

  it("only the server's refusal breaks a call: cluster-2 refusing cluster-1 holds back a shift into cluster-2, not one into cluster-1", () => {
    const into2 = scenario((d) => {
      refusing(d, "cluster-2");
      d.trafficPolicies?.push(canary());
    });
    expect(reviewsIn(status(into2, "canary"), "cluster-1").state).toBe("INVALID");
    const into1 = scenario((d) => {
      refusing(d, "cluster-2");
      d.trafficPolicies?.push(canary(REVIEWS_2, REVIEWS_1));
    });
    expect(status(into1, "canary").state).toBe("ACCEPTED");
    expect(routesToRemote(into1, "cluster-2", "reviews.bookinfo.svc.cluster-1.global")).toBe(true);
  });

  it("a mirror into a mesh that refuses the callers is held back too", () => {
    const input = scenario((d) => {
      refusing(d, "cluster-2");
      d.trafficPolicies?.push({
        name: "mirror",
        spec: { destinationSelector: [{ kubeServiceRefs: { services: [REVIEWS_1] } }], policy: { mirror: { kubeService: REVIEWS_2, percentage: 10 } } },
      });
    });
    const entry = reviewsIn(status(input, "mirror"), "cluster-1");
    expect(entry.state).toBe("INVALID");
    expect(entry.errors?.[0]).toMatch(
      /^mirror destination cluster-2\/bookinfo\/reviews: calls to it from mesh .* fail at the TLS handshake: VirtualMesh bookinfo-mesh is INVALID/,
    );
    expect(routesToRemote(input)).toBe(false);
  });

  it("shared trust not issued yet in cluster-2: PENDING with what it waits for; ACCEPTED and applied once the agent reports the certificate", () => {
    const pending = scenario((d) => {
      d.certificates = { "cluster-1": [issued("@cluster-1")] };
      d.trafficPolicies?.push(canary(), timeout());
    });
    const s = status(pending, "canary");
    expect(s.state).toBe("PENDING");
    expect(reviewsIn(s, "cluster-1")).toEqual({
      state: "PENDING",
      errors: [
        `trafficShift destination cluster-2/bookinfo/reviews: calls to it from mesh ${meshName(pending, "cluster-1")} wait for shared trust (the policy is applied here once it is issued): VirtualMesh bookinfo-mesh is PENDING for mesh ${meshName(pending, "cluster-2")} (its workloads' certificates do not chain to the VirtualMesh's root yet): waiting for the agent of cluster cluster-2 to issue the mesh's intermediate CA`,
      ],
    });
    expect(routesToRemote(pending)).toBe(false);
    // The timeout on the same destination has no cross-cluster target and local callers: ACCEPTED.
    expect(status(pending, "timeout").state).toBe("ACCEPTED");

    const translator = new Translator();
    const first = translator.translate(pending);
    expect(first).toEqual(translate(pending));
    const later = { ...pending, certificates: { ...pending.certificates, "cluster-2": [issued(meshName(pending, "cluster-2"))] } };
    const second = translator.translate(later);
    expect(second).toEqual(translate(later));
    expect(second.statuses["TrafficPolicy/canary"]?.state).toBe("ACCEPTED");
    expect(routesToRemote(later)).toBe(true);
  });

  it("no CA yet, or a bring-your-own CA awaiting its certificate: PENDING naming what to do", () => {
    const noCa = scenario((d) => {
      d.trust = {};
      d.trafficPolicies?.push(canary());
    });
    expect(reviewsIn(status(noCa, "canary"), "cluster-1").errors?.[0]).toMatch(
      /wait for shared trust .*: VirtualMesh bookinfo-mesh is PENDING for mesh .*: the root CA of VirtualMesh bookinfo-mesh is being created$/,
    );
    const byo = scenario((d) => {
      d.trust = { "bookinfo-mesh": { state: "AWAITING_CERTIFICATE" } };
      d.trafficPolicies?.push(canary());
    });
    const s = status(byo, "canary");
    expect(s.state).toBe("PENDING");
    expect(reviewsIn(s, "cluster-1").errors?.join("\n")).toContain("upload the chain with PUT /v1/virtualmeshes/bookinfo-mesh/ca/certificate");
  });

  it("shared trust FAILED in cluster-2: FAILED with the agent's words", () => {
    const input = scenario((d) => {
      d.certificates = {
        "cluster-1": [issued("@cluster-1")],
        "cluster-2": [{ mesh: "@cluster-2", state: "failed", error: "Secret istio-system/cacerts exists and is not managed by meshplane" }],
      };
      d.trafficPolicies?.push(canary());
    });
    const s = status(input, "canary");
    expect(s.state).toBe("FAILED");
    expect(reviewsIn(s, "cluster-1").state).toBe("FAILED");
    expect(reviewsIn(s, "cluster-1").errors?.[0]).toMatch(
      /fail at the TLS handshake: VirtualMesh bookinfo-mesh is FAILED for mesh .*: Secret istio-system\/cacerts exists and is not managed by meshplane$/,
    );
    expect(routesToRemote(input)).toBe(false);
  });

  it("a root rotation in progress keeps calls working: ACCEPTED", () => {
    const input = scenario((d) => {
      const next = "sha256:1111111111111111111111111111111111111111111111111111111111111111";
      d.trust = {
        "bookinfo-mesh": { issuer: next, rootFingerprint: next, rootNotAfter: "2035-01-01T00:00:00Z", trustBundle: [ROOT, next], phase: "ADDING_ROOT" },
      };
      d.trafficPolicies?.push(canary());
    });
    expect(status(input, "canary").state).toBe("ACCEPTED");
  });

  it("callers that reach the destination only through federation: held back when it cannot carry them, ACCEPTED when some callers are local", () => {
    const remoteOnly = scenario((d) => {
      refusing(d, "cluster-1");
      d.trafficPolicies?.push(timeout(REVIEWS_1, [{ kubeWorkloadMatcher: { clusters: ["cluster-2"] } }]));
    });
    const entry = reviewsIn(status(remoteOnly, "timeout"), "cluster-1");
    expect(entry.state).toBe("INVALID");
    expect(entry.errors?.[0]).toMatch(
      new RegExp(
        `^callers in mesh ${meshName(remoteOnly, "cluster-2")} reach this service only through federation, whose calls fail at the TLS handshake: VirtualMesh bookinfo-mesh is INVALID for mesh ${meshName(remoteOnly, "cluster-1")}: `,
      ),
    );
    const both = scenario((d) => {
      refusing(d, "cluster-1");
      d.trafficPolicies?.push(timeout(REVIEWS_1, [{ kubeWorkloadMatcher: { clusters: ["cluster-1", "cluster-2"] } }]));
    });
    expect(status(both, "timeout").state).toBe("ACCEPTED");
    // Without a sourceSelector the destination's own callers are local: ACCEPTED, though cluster-2's calls fail (the VirtualMesh says so).
    const everyone = scenario((d) => {
      refusing(d, "cluster-1");
      d.trafficPolicies?.push(timeout());
    });
    expect(status(everyone, "timeout").state).toBe("ACCEPTED");
  });

  it("a mesh refused membership: the unreachable target names the VirtualMesh and why", () => {
    const input = scenario((d) => {
      d.virtualMeshes?.unshift({ name: "aaa-first", createdAt: "2023-01-01T00:00:00.000Z", spec: { meshes: [{ name: "@cluster-2" }] } });
      d.trafficPolicies?.push(canary());
    });
    const entry = reviewsIn(status(input, "canary"), "cluster-1");
    expect(entry.state).toBe("INVALID");
    expect(entry.errors).toEqual([
      `trafficShift destination cluster-2/bookinfo/reviews is not reachable from mesh ${meshName(input, "cluster-1")}: VirtualMesh bookinfo-mesh does not carry it: mesh ${meshName(input, "cluster-2")} already belongs to VirtualMesh aaa-first`,
    ]);
    const callers = scenario((d) => {
      d.virtualMeshes?.unshift({ name: "aaa-first", createdAt: "2023-01-01T00:00:00.000Z", spec: { meshes: [{ name: "@cluster-2" }] } });
      d.trafficPolicies?.push(timeout(REVIEWS_1, [{ kubeWorkloadMatcher: { clusters: ["cluster-2"] } }]));
    });
    expect(reviewsIn(status(callers, "timeout"), "cluster-1")).toEqual({
      state: "INVALID",
      errors: [
        `callers in mesh ${meshName(callers, "cluster-2")} cannot reach this service: VirtualMesh bookinfo-mesh does not carry it: mesh ${meshName(callers, "cluster-2")} already belongs to VirtualMesh aaa-first`,
      ],
    });
  });

  it("a target mesh without an east-west gateway: the unreachable target names the VirtualMesh and why", () => {
    const input = scenario((d) => {
      const mesh = d.clusters["cluster-2"]?.meshes[0];
      if (mesh) mesh.gateways = [];
      d.trafficPolicies?.push(canary());
    });
    expect(reviewsIn(status(input, "canary"), "cluster-1").errors).toEqual([
      `trafficShift destination cluster-2/bookinfo/reviews is not reachable from mesh ${meshName(input, "cluster-1")}: VirtualMesh bookinfo-mesh does not carry it: mesh ${meshName(input, "cluster-2")} has no east-west gateway with a TLS port and an address`,
    ]);
  });
});
