/**
 * Push on real parts: lab kube-apiservers with agent processes, the control plane on DynamoDB Local
 * and the SQS emulator with its worker. An agent that polls only every 5 minutes still gets a change
 * at once through its push channel; an agent whose channel is cut converges by polling.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../functions/shared/logger";
import { createWorker } from "../../functions/translation/batch";
import { startPoller } from "../../functions/translation/poller";
import { FIXTURES } from "../support/agents";
import { type ControlPlane, startControlPlane, trafficPolicy } from "../support/control-plane";
import { type LabAgent, eventually, startLabAgent } from "./lab-agents";

let cp: ControlPlane;
let admin: string;
let slow: LabAgent;
let fast: LabAgent;
let poller: { stop: () => Promise<void> };

const timeout = async (agent: LabAgent) => {
  const res = await agent.cluster.request<{ spec: { http: { timeout?: string }[] } }>(
    "GET",
    "/apis/networking.istio.io/v1/namespaces/bookinfo/virtualservices/reviews",
  );
  return res.status === 200 ? (res.body.spec.http.find((r) => r.timeout)?.timeout ?? "none") : undefined;
};

const reviews = (cluster: string, value: string) =>
  trafficPolicy(`reviews-${cluster}`, {
    destinationSelector: [{ kubeServiceRefs: { services: [{ cluster, namespace: "bookinfo", name: "reviews" }] } }],
    policy: { requestTimeout: value },
  });

beforeAll(async () => {
  cp = await startControlPlane();
  poller = startPoller({ sqs: cp.sqs, queueUrl: cp.queueUrl, handler: createWorker(cp.worker), log: createLogger({}, () => undefined), waitSeconds: 1 });
  admin = await cp.tenant("push");
  [slow, fast] = await Promise.all([
    startLabAgent(cp, admin, "cluster-slow", join(FIXTURES, "istio-bookinfo.yaml"), ["--poll-interval=300", "--poll-jitter=0", "--resync-interval=600"]),
    startLabAgent(cp, admin, "cluster-fast", join(FIXTURES, "istio-bookinfo.yaml"), ["--poll-interval=2", "--poll-jitter=0", "--resync-interval=600"]),
  ]);
  // Both connected and caught up: their first snapshot applied.
  await eventually(
    "both agents' push channels",
    async () => (cp.push.connections("push", "cluster-slow") === 1 && cp.push.connections("push", "cluster-fast") === 1 ? true : undefined),
    120_000,
  );
}, 1_800_000);

afterAll(async () => {
  await Promise.all([slow?.stop(), fast?.stop()]);
  await poller?.stop();
  await cp?.stop();
});

describe("push", () => {
  it("an agent that polls every 5 minutes applies a change within seconds: the push told it to look", async () => {
    await eventually(
      "the first snapshot applied",
      async () => (((await cp.store.snapshots.head("push", "cluster-slow", true))?.appliedGeneration ?? 0) > 0 ? true : undefined),
      60_000,
    );
    expect((await cp.request("POST", "/v1/apply", { token: admin, body: { documents: [reviews("cluster-slow", "7s")] } })).status).toBe(200);
    // Well inside the 300 s poll: only the push can have brought it.
    expect(await eventually("the VirtualService in cluster-slow", async () => ((await timeout(slow)) === "7s" ? "7s" : undefined), 60_000)).toBe("7s");
  });

  it("with the push channel cut, an agent converges by polling", async () => {
    cp.push.close();
    await eventually("the channels closed", async () => (cp.push.connections("push", "cluster-fast") === 0 ? true : undefined), 10_000);
    expect((await cp.request("POST", "/v1/apply", { token: admin, body: { documents: [reviews("cluster-fast", "8s")] } })).status).toBe(200);
    expect(await eventually("the VirtualService in cluster-fast", async () => ((await timeout(fast)) === "8s" ? "8s" : undefined), 60_000)).toBe("8s");
    // It arrived with no channel open: the closed channel refuses the agent's reconnects.
    expect(cp.push.connections("push", "cluster-fast")).toBe(0);
  });
});
