/**
 * Cross-cluster calls, judged hop by hop with Istio's own config generation (call-path.ts): for every
 * golden case with federation, every sidecar calls every federated host it can see on every port,
 * and the call must reach the destination's pods through the remote east-west gateway, with mTLS
 * whose SNI the gateway routes, the server identities pinned, and the caller's trust domain accepted.
 */
import { describe, expect, it } from "vitest";
import type { KubeObject } from "@meshplane/core";
import { type TranslateInput, type TranslateOutput, translate } from "../../packages/core/src/translate/index";
import { readCase } from "../golden/cases";
import { loadInput } from "../golden/render";
import { type CallTrace, type JudgedCluster, traceCall } from "./call-path";
import { listenerOnPort } from "./envoy";
import { type Envoy, judgeXds } from "./judge";
import { clusterWorld } from "./world";

interface RemoteHost {
  host: string;
  ports: number[];
}

function judgeCase(name: string): { clusters: JudgedCluster[]; objects: Record<string, KubeObject[]> } {
  const input = loadInput(readCase(name, "input.yaml") as string);
  return judgeOutput(input, translate(input));
}

/** Istio's config generation for `output` in the clusters (Kubernetes objects, mesh config) `input` describes. */
function judgeOutput(input: TranslateInput, output: TranslateOutput): { clusters: JudgedCluster[]; objects: Record<string, KubeObject[]> } {
  const clusters: JudgedCluster[] = [];
  for (const cluster of input.clusters) {
    const world = clusterWorld(input, output, cluster);
    const mesh = input.meshes.find((m) => m.spec.cluster === cluster && m.spec.type === "istio");
    if (world === undefined || mesh === undefined) continue;
    clusters.push({ cluster, mesh, xds: judgeXds(world), proxies: world.proxies });
  }
  return { clusters, objects: Object.fromEntries(Object.entries(output.clusters).map(([c, o]) => [c, o.objects])) };
}

/** Federated hosts a cluster imports: its ServiceEntries that point at remote gateways (no exportTo). */
function importedHosts(objects: readonly KubeObject[]): RemoteHost[] {
  return objects
    .filter((o) => o.kind === "ServiceEntry" && (o.spec as { exportTo?: string[] }).exportTo === undefined)
    .map((o) => {
      const spec = o.spec as { hosts: string[]; ports: { number: number }[] };
      return { host: spec.hosts[0] as string, ports: spec.ports.map((p) => p.number) };
    });
}

function callsFrom(judged: ReturnType<typeof judgeCase>): { label: string; trace: CallTrace }[] {
  const out: { label: string; trace: CallTrace }[] = [];
  for (const source of judged.clusters) {
    const trustDomain = source.mesh.spec.istio?.trustDomain ?? "cluster.local";
    for (const { host, ports } of importedHosts(judged.objects[source.cluster] ?? [])) {
      for (const proxy of source.proxies.filter((p) => p.type === "sidecar")) {
        for (const port of ports) {
          const trace = traceCall({ from: { cluster: source.cluster, proxy: proxy.name, trustDomain }, host, port }, judged.clusters);
          out.push({ label: `${source.cluster} ${proxy.name} → ${host}:${port}`, trace });
        }
      }
    }
  }
  return out;
}

const WORKING = [
  "virtual-mesh-two-meshes",
  "virtual-mesh-three-meshes-selectors",
  "virtual-mesh-global-access",
  "federated-traffic-policy",
  "federation-source-cluster-selector",
  "federation-sidecar-without-injector-labels",
];

describe("cross-cluster calls under Istio's own config generation", () => {
  it.each(WORKING)("%s: every client reaches every federated host it imports", (name) => {
    const calls = callsFrom(judgeCase(name));
    expect(calls.length).toBeGreaterThan(0);
    for (const { label, trace } of calls) {
      expect(trace.problems, label).toEqual([]);
      expect(trace.pods.length, `${label}: pods reached`).toBeGreaterThan(0);
      expect(trace.sans.length, `${label}: server identities pinned`).toBeGreaterThan(0);
    }
  });

  it("two meshes: the whole path of reviews → ratings, hop by hop", () => {
    const calls = callsFrom(judgeCase("virtual-mesh-two-meshes"));
    const call = calls.find((c) => c.label === "cluster-1 bookinfo/reviews-v1 → ratings.bookinfo.svc.cluster-2.global:9080");
    expect(call?.trace).toEqual({
      problems: [],
      gateways: ["34.2.2.2:15443"],
      sni: ["outbound_.9080_._.ratings.bookinfo.svc.cluster-2.global"],
      sans: ["spiffe://cluster-2.local/ns/bookinfo/sa/ratings-v1"],
      pods: ["10.2.0.21:9080"],
    });
    const back = calls.find((c) => c.label === "cluster-2 bookinfo/ratings-v1 → reviews.bookinfo.svc.cluster-1.global:9080");
    expect(back?.trace.pods).toEqual(["10.1.0.11:9080", "10.1.0.12:9080", "10.1.0.13:9080"]);
  });

  it("distinct trust domains without aliases: the server's sidecar refuses the caller at the handshake", () => {
    const calls = callsFrom(judgeCase("virtual-mesh-trust-domains-refused"));
    expect(calls.length).toBeGreaterThan(0);
    for (const { label, trace } of calls) {
      expect(
        trace.problems.some((p) => /refuses callers of trust domain cluster-[12]\.local/.test(p)),
        label,
      ).toBe(true);
    }
  });

  it("a canary into a mesh that refuses the callers' trust domain: its calls would fail at the handshake, so it is held back and the callers keep their local route", () => {
    const input = loadInput(readCase("federated-shift-trust-domain-refused", "input.yaml") as string);
    const output = translate(input);
    expect(output.statuses["TrafficPolicy/reviews-canary"]?.destinations?.["reviews-bookinfo-cluster-1"]?.state).toBe("INVALID");
    const from = { cluster: "cluster-1", proxy: "bookinfo/productpage-v1", trustDomain: "cluster-1.local" };
    const local = { from, host: "reviews.bookinfo.svc.cluster.local", port: 9080 };
    // As generated: cluster-1's callers of reviews reach reviews' own pods, every hop working.
    const held = traceCall(local, judgeOutput(input, output).clusters);
    expect(held.problems).toEqual([]);
    expect(held.gateways).toEqual([]);
    // Had the canary been accepted (the output for the same tenant once cluster-2 aliases cluster-1.local),
    // a fifth of those calls would go to cluster-2, whose sidecars — as the clusters are now — refuse them.
    const aliased = loadInput(
      (readCase("federated-shift-trust-domain-refused", "input.yaml") as string).replace(
        "      - trustDomain: cluster-2.local\n",
        "      - trustDomain: cluster-2.local\n        trustDomainAliases: [cluster-1.local]\n",
      ),
    );
    const applied = translate(aliased);
    expect(applied.statuses["TrafficPolicy/reviews-canary"]?.state).toBe("ACCEPTED");
    const shifted = traceCall(local, judgeOutput(input, applied).clusters);
    expect(shifted.gateways).toEqual(["34.2.2.2:15443"]);
    expect(shifted.problems).toEqual(["cluster-2: bookinfo/reviews-v3 refuses callers of trust domain cluster-1.local (accepts spiffe://cluster-2.local/)"]);
    // The other direction works: cluster-1 accepts cluster-2's callers, so reviews-mirror-back stays ACCEPTED.
    expect(output.statuses["TrafficPolicy/reviews-mirror-back"]?.state).toBe("ACCEPTED");
    const back = traceCall(
      {
        from: { cluster: "cluster-2", proxy: "bookinfo/reviews-v3", trustDomain: "cluster-2.local" },
        host: "reviews.bookinfo.svc.cluster-1.global",
        port: 9080,
      },
      judgeOutput(input, output).clusters,
    );
    expect(back.problems).toEqual([]);
    expect(back.pods.length).toBeGreaterThan(0);
  });

  it("three meshes: a gateway never relays a caller to a third cluster's federated host", () => {
    const judged = judgeCase("virtual-mesh-three-meshes-selectors");
    for (const c of judged.clusters) {
      for (const proxy of c.proxies.filter((p) => p.type === "router")) {
        const listener = listenerOnPort(c.xds.proxies[proxy.name] as never, 15443);
        const names = ((listener?.filterChains as Envoy[] | undefined) ?? []).flatMap(
          (fc) => ((fc.filterChainMatch as Envoy | undefined)?.serverNames as string[] | undefined) ?? [],
        );
        const foreign = names.filter((sni) => sni.includes(".svc.") && !sni.includes(`.svc.${c.cluster}.`) && !sni.endsWith(".svc.cluster.local"));
        expect(foreign, `${c.cluster} ${proxy.name}`).toEqual([]);
      }
    }
  });
});
