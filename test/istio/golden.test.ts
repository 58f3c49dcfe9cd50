/**
 * Every golden case, judged by Istio itself: the objects each cluster gets pass istiod's validation,
 * and the Envoy configuration istiod computes from them (with the cluster's Services, Pods and
 * endpoints) never routes to a cluster that does not exist. Schema validity alone is not enough.
 */
import { describe, expect, it } from "vitest";
import { translate } from "../../packages/core/src/translate/index";
import { goldenCases, readCase } from "../golden/cases";
import { loadInput } from "../golden/render";
import { routeTargets, virtualHosts } from "./envoy";
import { judgeXds } from "./judge";
import { clusterWorld } from "./world";

const cases = goldenCases();

function judged(name: string) {
  const input = loadInput(readCase(name, "input.yaml") as string);
  const output = translate(input);
  const worlds = input.clusters.flatMap((cluster) => {
    const world = clusterWorld(input, output, cluster);
    return world === undefined ? [] : [{ cluster, world, output: output.clusters[cluster] }];
  });
  return worlds.map(({ cluster, world, output: clusterOutput }) => ({ cluster, objects: clusterOutput?.objects ?? [], xds: judgeXds(world) }));
}

describe("golden cases under Istio's own config generation", () => {
  it.each(cases)("%s", (name) => {
    for (const { cluster, objects, xds } of judged(name)) {
      const rejected = xds.validation.filter((v) => v.error !== undefined);
      expect(rejected, `${cluster}: objects istiod's validation rejects`).toEqual([]);
      expect(xds.validation).toHaveLength(
        objects.filter((o) => o.apiVersion.includes("istio.io") || o.apiVersion.startsWith("gateway.networking.k8s.io/")).length,
      );

      for (const [proxy, config] of Object.entries(xds.proxies)) {
        const known = new Set(config.clusters.map((c) => c.name as string));
        const dangling = virtualHosts(config)
          .flatMap((vh) => (vh.routes as Record<string, unknown>[] | undefined) ?? [])
          .flatMap(routeTargets)
          .map((t) => t.cluster)
          .filter((c) => !known.has(c));
        expect(dangling, `${cluster} ${proxy}: routes to clusters that do not exist`).toEqual([]);
      }

      // Istio merges nothing for sidecars: of two VirtualServices claiming one host, one is ignored.
      const hosts = objects
        .filter((o) => o.kind === "VirtualService" && ((o.spec as { gateways?: string[] }).gateways ?? ["mesh"]).includes("mesh"))
        .flatMap((o) => ((o.spec as { hosts: string[] }).hosts ?? []).map((h) => `${(o.spec as { exportTo?: string[] }).exportTo ?? "*"}|${h}`));
      expect(
        hosts.filter((h, i) => hosts.indexOf(h) !== i),
        `${cluster}: hosts claimed by two VirtualServices`,
      ).toEqual([]);
    }
  });
});
