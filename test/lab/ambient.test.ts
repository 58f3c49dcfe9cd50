import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../functions/shared/logger";
import { createWorker } from "../../functions/translation/batch";
import { startPoller } from "../../functions/translation/poller";
import type { LabAgent } from "../e2e/lab-agents";
import { type Cli, buildCli } from "../support/cli";
import { type ControlPlane, startControlPlane } from "../support/control-plane";
import { type Resource, applyAmbientPolicies, settledStatuses, startAmbientLab } from "./ambient-lab";
import { ambientReport, appliedObjects } from "./ambient-report";

/**
 * `npm run lab -- --ambient` end to end, on the lab's real parts: two kube-apiservers seeded with
 * Bookinfo on Istio's ambient data plane (ztunnel, a waypoint bound to reviews, cluster-west's payments
 * left on sidecars), their agents under the chart's RBAC, the control plane with its worker, and the
 * lab's policies applied; what the agents applied is read back from the apiservers.
 */
let cp: ControlPlane;
let poller: { stop: () => Promise<void> };
let admin: string;
let agents: LabAgent[] = [];
let statuses: Resource[];
let cli: Cli;

beforeAll(async () => {
  cp = await startControlPlane();
  poller = startPoller({ sqs: cp.sqs, queueUrl: cp.queueUrl, handler: createWorker(cp.worker), log: createLogger({}, () => undefined), waitSeconds: 1 });
  admin = await cp.tenant("lab-ambient");
  cli = buildCli();
  agents = await startAmbientLab(cp, admin);
  statuses = await settledStatuses(cp, admin, await applyAmbientPolicies(cp, admin));
}, 600_000);

afterAll(async () => {
  await Promise.all(agents.map((a) => a.stop()));
  await poller?.stop();
  await cp?.stop();
});

describe("the ambient lab", () => {
  it("has each agent apply reviews' HTTPRoute, and ztunnel's AuthorizationPolicy for ratings, in its cluster", async () => {
    for (const agent of agents) {
      const applied = await appliedObjects(agent);
      const route = applied.find((o) => o.kind === "HTTPRoute" && o.namespace === "bookinfo" && o.name === "reviews");
      expect(route?.spec, agent.name).toMatchObject({
        parentRefs: [{ group: "", kind: "Service", name: "reviews", port: 9080 }],
        rules: [{ timeouts: { request: "5s" } }],
      });
      expect(route?.parents).toBe("TrafficPolicy/reviews-timeout");
      expect(applied.filter((o) => o.kind === "HTTPRoute").map((o) => o.name)).toEqual(["reviews"]);
      const ratings = applied.find((o) => o.kind === "AuthorizationPolicy" && o.namespace === "bookinfo" && o.name === "ratings");
      expect(ratings?.parents).toBe("AccessPolicy/ratings-from-reviews");
      // Behind the waypoint, the caller's identity is checked by the waypoint: a policy bound to the Service.
      const atWaypoint = applied.filter((o) => o.kind === "AuthorizationPolicy" && (o.spec as { targetRefs?: unknown }).targetRefs);
      expect(atWaypoint.map((o) => [o.namespace, o.parents, (o.spec as { targetRefs: unknown }).targetRefs])).toEqual([
        ["bookinfo", "AccessPolicy/reviews-from-productpage", [{ group: "", kind: "Service", name: "reviews" }]],
      ]);
    }
    const ledger = (await appliedObjects(agents[1] as LabAgent)).find((o) => o.kind === "AuthorizationPolicy" && o.name === "ledger");
    expect(ledger?.parents).toBe("AccessPolicy/ledger-from-payments-api");
  });

  it("says on each policy what it can make work there", () => {
    const states = Object.fromEntries(statuses.map((r) => [`${r.kind}/${r.metadata.name}`, r.status?.state]));
    expect(states, JSON.stringify(statuses.map((r) => r.status))).toEqual({
      "VirtualMesh/lab-ambient": "ACCEPTED",
      "TrafficPolicy/reviews-timeout": "ACCEPTED",
      // ratings has no waypoint: its ambient callers' calls pass no proxy that would apply a route.
      "TrafficPolicy/ratings-timeout": "INVALID",
      "AccessPolicy/ratings-from-reviews": "ACCEPTED",
      "AccessPolicy/reviews-from-productpage": "ACCEPTED",
      "AccessPolicy/ledger-from-payments-api": "ACCEPTED",
    });
  });

  it("prints the data planes, waypoints, applied objects and statuses a user should look at", async () => {
    const env = { MESHPLANE_URL: cp.url, MESHPLANE_TOKEN: admin };
    const report = await ambientReport(cli, env, agents, statuses);
    expect(report).toMatch(/DATA PLANE\s+WAYPOINT\n/);
    expect(report).toMatch(/reviews-bookinfo-cluster-west\s.*ambient\s+bookinfo\/waypoint/);
    expect(report).toMatch(/payments--api-payments-cluster-west-deployment\s.*sidecar/);
    expect(report).toContain("ztunnel 1.24.2 in istio-system");
    // cluster-west's mesh has both data planes: payments on sidecars (and the east-west gateway), Bookinfo on ambient.
    expect(report).toMatch(/describe mesh istiod--1--24-istio--system-cluster-west\n[^$]*Workloads: +4 sidecar, 7 ambient\n/);
    expect(report).toContain("In cluster-west's kube-apiserver, applied by its agent:\n  HTTPRoute bookinfo/reviews   (from TrafficPolicy/reviews-timeout)");
    expect(report).toMatch(/create a waypoint/i);
  });
});
