import { type CsrResponse, createCsr, fingerprintSha256, generateKeyPair, signIntermediate, splitPemBundle, verifyChain } from "@meshplane/core";
import { afterEach, describe, expect, it, vi } from "vitest";
import { materialOf, type SecretObject } from "../certificates/cacerts";
import { keyMatchesCertificate } from "../certificates/x509";
import { KubeError } from "../kube/failure";
import { type LoopMemory, newMemory } from "../loop/memory";
import { DAY, FakeControlPlane, FakeKube, NOW, crypto, cycleAt, fakeDeps, newRoot, runCertificateStage, runRestartStage } from "../testing/fakes";

const IDS = { "mesh-a": "spiffe://cluster.local/ns/ns-mesh-a/sa/istiod", "mesh-b": "spiffe://cluster.local/ns/ns-mesh-b/sa/istiod" };
const logged: string[] = [];

async function setup(options: { meshes?: string[]; adopt?: boolean; rootSince?: Date } = {}) {
  const cp = await FakeControlPlane.create(IDS, options.rootSince);
  const kube = new FakeKube();
  for (const ns of ["ns-mesh-a", "ns-mesh-b"]) {
    kube.deployment(ns, "istiod");
    kube.deployment(ns, "reviews");
  }
  const deps = fakeDeps(kube, cp);
  deps.certificates.adoptExistingCacerts = options.adopt ?? false;
  const memory: LoopMemory = newMemory();
  memory.directives = (options.meshes ?? ["mesh-a"]).map((m) => cp.directive(m));
  const cycle = async (now = NOW, mode: "none" | "all" = "all") => {
    const run = cycleAt(deps, memory, now, mode);
    await runCertificateStage(run);
    await runRestartStage(run);
  };
  return { cp, kube, deps, memory, cycle };
}

const cacerts = (kube: FakeKube, ns = "ns-mesh-a") => kube.get("Secret", ns, "cacerts") as unknown as SecretObject | undefined;
const writes = (kube: FakeKube) => kube.writes().map((c) => `${c.verb} ${c.kind} ${c.namespace}/${c.name}`);

afterEach(() => vi.restoreAllMocks());

/** A real intermediate from the right CA, but for a key the agent never made. */
const otherKey = async (a: CsrResponse, cp: FakeControlPlane) => {
  const keyPair = await generateKeyPair(crypto, "ECDSA_P256");
  const csrPem = await createCsr(crypto, { keyPair, spiffeId: IDS["mesh-a"] });
  const { certPem } = await signIntermediate(crypto, {
    csrPem,
    issuer: { certPem: cp.signer.certPem, privateKey: cp.signer.keyPair.privateKey },
    spiffeId: IDS["mesh-a"],
    ttlDays: 365,
    now: NOW,
  });
  return { ...a, certChain: `${certPem}${cp.signer.certPem}` };
};

describe("the certificate stage", () => {
  it("issues a first intermediate: the key stays here, cacerts gets the four files, istiod restarts", async () => {
    const { cp, kube, deps, memory, cycle } = await setup();
    await cycle();
    logged.push(...deps.lines);
    expect(cp.requests).toHaveLength(1);
    expect(JSON.stringify(cp.requests)).not.toContain("PRIVATE KEY");
    expect(writes(kube)).toEqual(["apply Secret ns-mesh-a/cacerts", "patch Deployment ns-mesh-a/istiod", "patch Secret ns-mesh-a/cacerts"]);
    const secret = cacerts(kube) as SecretObject;
    expect(secret.type).toBe("Opaque");
    expect(Object.keys(secret.data ?? {}).sort()).toEqual(["ca-cert.pem", "ca-key.pem", "cert-chain.pem", "root-cert.pem"]);
    expect(secret.metadata.labels).toEqual({
      "app.kubernetes.io/managed-by": "meshplane",
      "meshplane.dev/tenant": "acme",
      "meshplane.dev/cluster": "cluster-1",
    });
    const m = materialOf(secret);
    if (!m) throw new Error("no material");
    expect(m.caKey).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    expect(keyMatchesCertificate(m.caCert, m.caKey)).toBe(true);
    expect(splitPemBundle(m.certChain)[0]).toBe(m.caCert);
    expect(m.rootCert).toBe(cp.signer.certPem);
    expect(await verifyChain(crypto, { leafPem: m.caCert, intermediatePems: [], rootPems: [m.rootCert], now: NOW })).toBe(true);
    const d = memory.directives[0];
    expect(memory.meshes.get("mesh-a")?.result).toMatchObject({ mesh: "mesh-a", state: "issued", issuer: d?.issuer, trustBundle: d?.trustBundle });
    expect(secret.metadata.annotations).toMatchObject({ "meshplane.dev/issuer": d?.issuer, "meshplane.dev/istiod-restarted-for": NOW.toISOString() });
    expect(kube.get("Deployment", "ns-mesh-a", "reviews")?.metadata?.generation).toBe(1);
    expect(deps.metrics.render()).toContain("meshplane_agent_certificates_issued_total 1");
  });

  it("leaves a cacerts that holds what the directive asks alone: no CSR, no write", async () => {
    const { cp, kube, cycle } = await setup();
    await cycle();
    kube.calls = [];
    await cycle(new Date(NOW.getTime() + DAY));
    expect(cp.requests).toHaveLength(1);
    expect(kube.writes()).toEqual([]);
    expect(kube.calls.map((c) => c.verb)).toEqual(["get"]);
  });

  it("renews within rotateBeforeDays of expiry, without restarting istiod (its file watcher loads it)", async () => {
    const { cp, kube, cycle } = await setup();
    await cycle();
    const before = materialOf(cacerts(kube))?.caCert;
    kube.calls = [];
    await cycle(new Date(NOW.getTime() + 300 * DAY));
    expect(kube.writes()).toEqual([]);
    cp.now = new Date(NOW.getTime() + 340 * DAY);
    await cycle(cp.now);
    expect(cp.requests).toHaveLength(2);
    expect(writes(kube)).toEqual(["apply Secret ns-mesh-a/cacerts"]);
    expect(materialOf(cacerts(kube))?.caCert).not.toBe(before);
  });

  it("writes a new bundle and restarts istiod when a root is added; a new issuer under the same roots needs no restart", async () => {
    const { cp, kube, memory, cycle } = await setup();
    await cycle();
    const rootB = await newRoot("Root B");
    cp.roots = [cp.signer.certPem, rootB.certPem];
    memory.directives = [cp.directive("mesh-a")];
    kube.calls = [];
    await cycle(new Date(NOW.getTime() + 1000));
    expect(writes(kube)).toEqual(["apply Secret ns-mesh-a/cacerts", "patch Deployment ns-mesh-a/istiod", "patch Secret ns-mesh-a/cacerts"]);
    expect(splitPemBundle(materialOf(cacerts(kube))?.rootCert ?? "")).toHaveLength(2);
    cp.signer = rootB;
    memory.directives = [cp.directive("mesh-a")];
    kube.calls = [];
    await cycle(new Date(NOW.getTime() + 2000));
    expect(writes(kube)).toEqual(["apply Secret ns-mesh-a/cacerts"]);
    expect(memory.meshes.get("mesh-a")?.result).toMatchObject({ state: "issued", issuer: fingerprintSha256(rootB.certPem) });
  });

  it("never touches a cacerts meshplane did not write unless told to adopt it", async () => {
    const foreign = (await newRoot("Someone's CA")).certPem;
    const b64 = Buffer.from(foreign).toString("base64");
    const secret = {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "cacerts", namespace: "ns-mesh-a" },
      type: "Opaque",
      data: { "ca-cert.pem": b64, "ca-key.pem": b64, "cert-chain.pem": b64, "root-cert.pem": b64 },
    };
    const refused = await setup();
    refused.kube.put(secret);
    await refused.cycle();
    expect(refused.kube.writes()).toEqual([]);
    expect(refused.cp.requests).toEqual([]);
    const result = refused.memory.meshes.get("mesh-a")?.result;
    expect(result?.state).toBe("failed");
    expect(result?.error).toMatch(/not written by meshplane.*certificates\.adoptExistingCacerts=true/);

    const adopted = await setup({ adopt: true });
    adopted.kube.put(secret);
    await adopted.cycle();
    expect(writes(adopted.kube)).toEqual(["apply Secret ns-mesh-a/cacerts", "patch Deployment ns-mesh-a/istiod", "patch Secret ns-mesh-a/cacerts"]);
    expect(adopted.memory.meshes.get("mesh-a")?.result.state).toBe("issued");
  });

  it("reports a refused CSR for its mesh only, leaves that cacerts as it was and retries after a backoff", async () => {
    vi.spyOn(Math, "random").mockReturnValue(0.5);
    const { cp, kube, deps, memory, cycle } = await setup({ meshes: ["mesh-a", "mesh-b"] });
    cp.refuse.add("mesh-a");
    await cycle();
    logged.push(...deps.lines);
    expect(memory.meshes.get("mesh-a")?.result).toMatchObject({ state: "failed", error: expect.stringContaining("403") });
    expect(cacerts(kube)).toBeUndefined();
    expect(memory.meshes.get("mesh-b")?.result.state).toBe("issued");
    expect(deps.metrics.render()).toContain('meshplane_agent_certificate_errors_total{mesh="mesh-a"} 1');
    cp.refuse.clear();
    await cycle(new Date(NOW.getTime() + 1000), "none");
    expect(cp.requests.filter((r) => r.mesh === "mesh-a")).toHaveLength(1);
    await cycle(new Date(NOW.getTime() + 6000), "none");
    expect(cp.requests.filter((r) => r.mesh === "mesh-a")).toHaveLength(2);
    expect(memory.meshes.get("mesh-a")?.result.state).toBe("issued");
  });

  it.each([
    ["a chain for a key this agent did not make", otherKey, /does not carry the key this agent generated/],
    [
      "an intermediate from another issuer",
      async (a: CsrResponse) => ({ ...a, certChain: `${splitPemBundle(a.certChain)[0]}${(await newRoot("Rogue")).certPem}` }),
      /was issued by sha256:/,
    ],
    [
      "a root bundle other than the snapshot's",
      async (a: CsrResponse) => ({ ...a, rootBundle: `${a.rootBundle}${(await newRoot("Extra")).certPem}` }),
      /rootBundle holds/,
    ],
    ["no PEM at all", (a: CsrResponse) => ({ ...a, certChain: "hello" }), /certChain must hold|not a PEM/],
  ])("refuses %s and writes nothing", async (_what, tamper, why) => {
    const { cp, kube, deps, memory, cycle } = await setup();
    cp.tamper = (a) => tamper(a, cp);
    await cycle();
    logged.push(...deps.lines);
    expect(kube.writes()).toEqual([]);
    expect(memory.meshes.get("mesh-a")?.result).toMatchObject({ state: "failed", error: expect.stringMatching(why) });
  });

  it("refuses a chain that does not verify at the agent's clock (an expired intermediate)", async () => {
    const { cp, kube, memory, cycle } = await setup({ rootSince: new Date(NOW.getTime() - 1000 * DAY) });
    cp.now = new Date(NOW.getTime() - 400 * DAY);
    await cycle();
    expect(kube.writes()).toEqual([]);
    expect(memory.meshes.get("mesh-a")?.result.error).toMatch(/does not verify/);
  });

  it("never logs key material", () => {
    expect(logged.length).toBeGreaterThan(5);
    for (const line of logged) expect(line).not.toMatch(/PRIVATE KEY|BEGIN /);
  });

  it("names the chart value when the apiserver refuses cacerts in a namespace the chart's Roles do not name", async () => {
    const { kube, memory, cycle } = await setup();
    kube.fail = (c) => (c.kind === "Secret" ? new KubeError(403, 'secrets "cacerts" is forbidden') : undefined);
    await cycle();
    expect(memory.meshes.get("mesh-a")?.result).toMatchObject({
      state: "failed",
      error: expect.stringContaining('chart value certificates.namespaces: add "ns-mesh-a"'),
    });
  });
});
