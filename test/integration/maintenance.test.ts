import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runMaintenance } from "../../functions/ops/maintenance";
import { SqsTranslateQueue } from "../../functions/queue/translate-queue";
import { createLogger } from "../../functions/shared/logger";
import { inject } from "vitest";
import { type ControlPlane, startControlPlane, trafficPolicy } from "../support/control-plane";

let cp: ControlPlane;
let deps: Parameters<typeof runMaintenance>[0];
beforeAll(async () => {
  cp = await startControlPlane();
  deps = {
    store: cp.store,
    queue: new SqsTranslateQueue({ region: "us-east-1", queueUrl: cp.queueUrl, endpoint: inject("sqsEndpoint") }),
    log: createLogger({}, () => undefined),
    now: () => new Date(),
  };
});
afterAll(() => cp.stop());

describe("scheduled maintenance", () => {
  it("reconcile re-enqueues a tenant whose job was lost; translated tenants are left alone", async () => {
    const token = await cp.tenant("lost");
    await cp.tenant("idle");
    // A change whose enqueue never happened (stored straight through the store, as if SQS had failed).
    await cp.store.resources.write("lost", [{ doc: trafficPolicy("p") as never, mode: "create" }], new Date().toISOString());
    expect(await cp.jobs()).toEqual([]);
    expect(await runMaintenance(deps, "reconcile")).toBe(1);
    const jobs = await cp.jobs();
    expect(jobs.map((j) => j.body)).toEqual([{ tenantId: "lost", revision: 1 }]);
    await cp.request("PUT", "/v1/trafficpolicies/p", { token, body: trafficPolicy("p", { policy: { requestTimeout: "2s" } }) });
    expect(await cp.work()).toEqual({ handled: 1, failed: 0 });
    expect(await runMaintenance(deps, "reconcile")).toBe(0);
  });

  it("refresh enqueues a forced job that runs although the revision is translated", async () => {
    expect(await runMaintenance(deps, "refresh")).toBe(1);
    const [job] = await cp.jobs();
    expect(job?.body).toEqual({ tenantId: "lost", revision: 2, force: true });
    expect(job?.dedupId).toMatch(/^lost-refresh-\d{4}-\d{2}-\d{2}T\d{2}$/);
    // Within the hour SQS drops a repeat; a forced job with a fresh id runs although revision 2 is translated.
    await runMaintenance(deps, "refresh");
    expect(await cp.work()).toEqual({ handled: 0, failed: 0 });
    await deps.queue.enqueue({ tenantId: "lost", revision: 2, force: true }, "lost-refresh-test");
    expect(await cp.work()).toEqual({ handled: 1, failed: 0 });
    expect(cp.logs.filter((l) => l.includes("tenant translated") && l.includes('"revision":2')).length).toBe(2);
  });
});
