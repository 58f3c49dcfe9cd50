import { afterEach, describe, expect, it, vi } from "vitest";
import { RESTARTED_AT, type WorkloadRef } from "../discovery/mesh-workloads";
import { KubeError } from "../kube/failure";
import { type LoopMemory, newMemory } from "../loop/memory";
import { FakeControlPlane, FakeKube, NOW, cycleAt, fakeDeps, runCertificateStage, runRestartStage } from "../testing/fakes";

const ID = "spiffe://cluster.local/ns/istio-system/sa/istiod";
const at = (seconds: number) => new Date(NOW.getTime() + seconds * 1000);

/** A mesh in istio-system with a revisioned istiod and three injected workloads in `shop`. */
async function setup(options: { chart: boolean; directive: boolean }) {
  const cp = await FakeControlPlane.create({ mesh: ID });
  const kube = new FakeKube();
  kube.deployment("istio-system", "istiod-1-24");
  kube.deployment("istio-system", "istio-ingressgateway");
  for (const name of ["cart", "web"]) kube.deployment("shop", name);
  kube.put({ apiVersion: "apps/v1", kind: "StatefulSet", metadata: { name: "db", namespace: "shop" }, spec: { template: { metadata: {} } } });
  const meshWorkloads = (): WorkloadRef[] =>
    [...kube.objects.values()]
      .filter((o) => o.metadata?.namespace === "shop")
      .map((o) => {
        const restartedAt = (o as { spec: { template: { metadata?: { annotations?: Record<string, string> } } } }).spec.template.metadata?.annotations?.[
          RESTARTED_AT
        ];
        return { kind: o.kind as WorkloadRef["kind"], namespace: "shop", name: o.metadata?.name as string, ...(restartedAt ? { restartedAt } : {}) };
      });
  const deps = fakeDeps(kube, cp, { meshWorkloads });
  deps.certificates.autoRestartPods = options.chart;
  let memory: LoopMemory = newMemory();
  const directives = [cp.directive("mesh", { secretNamespace: "istio-system", autoRestartPods: options.directive })];
  memory.directives = directives;
  const cycle = async (now: Date, fresh = false, mode: "none" | "all" = "none") => {
    if (fresh) {
      memory = newMemory();
      memory.directives = directives;
    }
    kube.calls = [];
    const run = cycleAt(deps, memory, now, fresh ? "changed" : mode);
    await runCertificateStage(run);
    await runRestartStage(run);
    return kube.writes().map((c) => `${c.verb} ${c.kind} ${c.namespace}/${c.name}`);
  };
  return { kube, deps, cycle, result: () => memory.meshes.get("mesh")?.result };
}

afterEach(() => vi.restoreAllMocks());

describe("the restart stage", () => {
  it.each([
    [{ chart: false, directive: true }, /chart value certificates\.autoRestartPods\.enabled is false/],
    [{ chart: true, directive: false }, /VirtualMesh does not set autoRestartPods/],
  ])("with %j restarts istiod only and says workloads keep their old certificates", async (options, why) => {
    const { cycle, result } = await setup(options);
    expect(await cycle(NOW)).toEqual(["apply Secret istio-system/cacerts", "patch Deployment istio-system/istiod-1-24", "patch Secret istio-system/cacerts"]);
    expect(await cycle(at(60))).toEqual([]);
    expect(result()).toMatchObject({ state: "issued", error: expect.stringMatching(why) });
    expect(result()?.error).toContain("keep their old certificates until they restart");
  });

  it("rolls the mesh's workloads one at a time after istiod rolled out, and a restarted agent continues", async () => {
    const { kube, cycle, result } = await setup({ chart: true, directive: true });
    expect(await cycle(NOW)).toEqual(["apply Secret istio-system/cacerts", "patch Deployment istio-system/istiod-1-24", "patch Secret istio-system/cacerts"]);
    expect(await cycle(at(15))).toEqual([]);
    expect(result()?.error).toMatch(/waiting for istiod-1-24 to roll out/);
    kube.settle();
    expect(await cycle(at(20))).toEqual(["patch Deployment shop/cart"]);
    expect(result()?.error).toBeUndefined();
    expect(await cycle(at(35))).toEqual([]);
    expect(await cycle(at(51))).toEqual(["patch Deployment shop/web"]);
    expect(await cycle(at(82), true)).toEqual(["patch StatefulSet shop/db"]);
    expect(await cycle(at(113))).toEqual(["patch Secret istio-system/cacerts"]);
    expect(kube.get("Secret", "istio-system", "cacerts")?.metadata?.annotations?.["meshplane.dev/workloads-restarted-for"]).toBe(NOW.toISOString());
    expect(await cycle(at(200))).toEqual([]);
    expect(await cycle(at(300), true)).toEqual([]);
  });

  it("says which chart value to set when istiod may not be restarted, and retries with a growing backoff", async () => {
    vi.spyOn(Math, "random").mockReturnValue(0.5);
    const { kube, cycle, result } = await setup({ chart: false, directive: false });
    kube.fail = (c) => (c.verb === "patch" && c.kind === "Deployment" ? new KubeError(403, 'deployments.apps "istiod-1-24" is forbidden') : undefined);
    await cycle(NOW);
    expect(result()).toMatchObject({ state: "failed", error: expect.stringContaining('certificates.istiodDeployments: add "istiod-1-24"') });
    const attempts = async (s: number, resync = true) => (
      await cycle(at(s), false, resync ? "all" : "none"), kube.calls.filter((c) => c.kind === "Deployment" && c.verb === "patch").length
    );
    expect(await attempts(4)).toBe(0); // 5 s after the first failure
    expect(await attempts(6)).toBe(1);
    expect(await attempts(14)).toBe(0); // 10 s after the second
    expect(await attempts(17, false)).toBe(1);
    kube.fail = () => undefined;
    expect(await cycle(at(3600))).toEqual(["patch Deployment istio-system/istiod-1-24", "patch Secret istio-system/cacerts"]);
    expect(result()?.state).toBe("issued");
  });
});
