import type { KubeObject } from "@meshplane/core";
import { describe, expect, it } from "vitest";
import { FakeControlPlane, FakeKube, NOW, SCOPE, fakeDeps, snapshotSigner } from "../testing/fakes";
import { verifyStage } from "./verify";

const labels = { "app.kubernetes.io/managed-by": "meshplane", "meshplane.dev/tenant": SCOPE.tenant, "meshplane.dev/cluster": SCOPE.cluster };
const VS: KubeObject = {
  apiVersion: "networking.istio.io/v1",
  kind: "VirtualService",
  metadata: { name: "reviews", namespace: "shop", labels, annotations: {} },
  spec: { hosts: ["reviews"] },
};
const OLD = "0b6f4a1e-2c3d-4e5f-8a9b-0c1d2e3f4a5b";
const NEW = "7d9e1f20-3a4b-4c5d-9e8f-1a2b3c4d5e6f";

describe("the verify stage and the cluster's incarnation", () => {
  // [what, verified?, the agent's stored incarnation, the incarnation the snapshot is signed for]
  it.each<[string, boolean, string | undefined, string | undefined]>([
    ["its own incarnation", true, NEW, NEW],
    ["an earlier incarnation of the same tenant/cluster (a reset agent of a re-created cluster)", false, NEW, OLD],
    ["a later incarnation (an agent of the deleted cluster)", false, OLD, NEW],
    ["no incarnation, at an agent that registered with one", false, NEW, undefined],
    ["an incarnation, at an agent that registered before incarnations", false, undefined, NEW],
    ["no incarnation, at an agent that registered before incarnations", true, undefined, undefined],
  ])("a snapshot for %s: accepted %s", async (_what, verified, stored, signedFor) => {
    const { jwk, sign } = await snapshotSigner();
    const deps = fakeDeps(new FakeKube(), await FakeControlPlane.create({}), {
      trustedKeys: [jwk],
      state: { appliedGeneration: 0, ...(stored ? { incarnation: stored } : {}) },
    });
    const input = { jws: await sign(1, [VS], [], signedFor), state: deps.state, holdsDesired: false, now: NOW };
    if (verified) {
      const output = await verifyStage(deps, input);
      expect(output.newer?.generation).toBe(1);
      expect(output.objects).toEqual([VS]);
    } else {
      await expect(verifyStage(deps, input)).rejects.toMatchObject({ reason: "wrong-audience" });
    }
  });
});
