/**
 * Ambient multicluster judged by Istio's own code (docs/ambient.md#ambient-multicluster), one
 * cluster at a time: the judge's ambient istiod, with AMBIENT_ENABLE_MULTI_NETWORK on, reads
 * meshplane's translation of the two-cluster golden case, the east-west gateway meshplane generates
 * for the cluster among it. The two-cluster view (one istiod reading the other's Services through a
 * remote secret) is ambient-multicluster.test.ts.
 */
import { describe, expect, it } from "vitest";
import { translate } from "../../packages/core/src/translate/index";
import { buildInput } from "../golden/tenant";
import { ambientWorld } from "./ambient-world";
import { goldenDescription } from "./features-support";
import { type Envoy, judgeAmbientMultiNetwork } from "./judge";

function serviceOf(addresses: readonly Envoy[], name: string): Envoy | undefined {
  return addresses.map((a) => a.service as Envoy | undefined).find((s) => s?.name === name);
}

describe("ambient multicluster in Istio's code, one cluster", () => {
  const input = buildInput(goldenDescription("ambient-federation"));
  const output = translate(input);
  const world = ambientWorld(input, output, "cluster-1");
  if (world === undefined) throw new Error("cluster-1 has no Istio mesh");
  const judged = judgeAmbientMultiNetwork(world);

  it("generates the east-west gateway, labelled with the cluster's network", () => {
    const gateway = output.clusters["cluster-1"]?.objects.find((o) => o.kind === "Gateway" && o.metadata.name === "istio-eastwestgateway");
    expect(gateway?.metadata).toMatchObject({ namespace: "istio-system", labels: { "topology.istio.io/network": "network-1" } });
    expect(gateway?.spec).toMatchObject({ gatewayClassName: "istio-east-west" });
  });

  it("accepts meshplane's east-west gateway and its other objects", () => {
    expect(judged.validation.filter((v) => v.error !== undefined)).toEqual([]);
    expect(judged.validation).toContainEqual(expect.objectContaining({ kind: "Gateway", namespace: "istio-system", name: "istio-eastwestgateway" }));
  });

  it("keeps the global service on its waypoint: ztunnel sends reviews' traffic to bookinfo/waypoint", () => {
    const reviews = serviceOf(judged.ztunnel.addresses, "reviews");
    expect(reviews?.waypoint).toBeDefined();
    expect(JSON.stringify(reviews?.waypoint)).toContain("waypoint.bookinfo.svc.cluster.local");
  });
});
