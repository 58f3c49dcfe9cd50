/**
 * A translate job on the real store: `npm run bench -- translate-job [clusters] [servicesPerCluster] [trafficPolicies]`.
 * Seeds the bench tenant (test/bench/_bench-tenant.ts) into DynamoDB Local, runs one job cold
 * (the whole tenant read), changes one TrafficPolicy through the store as the API does, and runs the
 * next job on the warm worker (the change log read). Counts the DynamoDB items each job read — at
 * the client, from every GetItem, BatchGetItem and Query answer — against the tenant's size.
 * Last line: {"bench":"translate-job","tenant_items",…,"warm_items_read","warm_read_pct",…}.
 */
import { performance } from "node:perf_hooks";
import type { UserDocument, UserKind } from "@meshplane/core";
import { translateTenant } from "../../functions/translation/job";
import { WarmInputs } from "../../functions/translation/warm-input";
import { benchPlane } from "./_harness";
import { benchTenant, shapeOf } from "./_bench-tenant";

const shape = shapeOf(process.argv.slice(2), 20);
const plane = await benchPlane();
let itemsRead = 0;
const client = (plane.store as unknown as { tenants: { deps: { doc: { middlewareStack: { add: (...args: unknown[]) => void } } } } }).tenants.deps.doc;
client.middlewareStack.add(
  (next: (args: unknown) => Promise<{ output: Record<string, unknown> }>) => async (args: unknown) => {
    const result = await next(args);
    const out = result.output ?? {};
    if (out.Item) itemsRead += 1;
    if (typeof out.Count === "number") itemsRead += out.Count;
    if (out.Responses && typeof out.Responses === "object" && !Array.isArray(out.Responses))
      for (const items of Object.values(out.Responses as Record<string, unknown[]>)) itemsRead += items.length;
    return result;
  },
  { step: "initialize", name: "itemCounter" },
);

try {
  const input = benchTenant(shape);
  const tenantItems =
    input.clusters.length +
    input.meshes.length +
    input.workloads.length +
    input.destinations.length +
    input.virtualMeshes.length +
    input.trafficPolicies.length +
    input.accessPolicies.length;
  console.log(`tenant: ${shape.clusters} clusters × ${shape.servicesPerCluster} services: ${tenantItems} items (clusters, discovered objects, policies)`);
  const created = await plane.request("POST", "/v1/tenants", plane.operatorToken, { name: "bench" });
  if (created.status !== 201) throw new Error(`tenant: ${created.status} ${await created.text()}`);
  const seeding = performance.now();
  const now = new Date();
  for (const cluster of input.clusters) {
    await plane.store.clusters.register("bench", { name: cluster }, now);
    const of = <T extends { spec: { cluster: string } }>(list: T[]) => list.filter((o) => o.spec.cluster === cluster);
    await plane.store.discovered.replace("bench", cluster, { meshes: of(input.meshes), workloads: of(input.workloads), destinations: of(input.destinations) });
  }
  const documents = [...input.virtualMeshes, ...input.trafficPolicies, ...input.accessPolicies].map(
    (r): UserDocument => ({ apiVersion: r.apiVersion, kind: r.kind, metadata: { name: r.metadata.name }, spec: r.spec }) as UserDocument,
  );
  for (let i = 0; i < documents.length; i += 98)
    await plane.store.resources.write(
      "bench",
      documents.slice(i, i + 98).map((doc) => ({ doc, mode: "apply" as const })),
      now.toISOString(),
    );
  console.log(`seeded in ${Math.round((performance.now() - seeding) / 1000)} s`);

  const worker = { ...plane.worker, warm: new WarmInputs(plane.store) };
  const job = async () => {
    const tenant = await plane.store.tenants.get("bench");
    itemsRead = 0;
    const start = performance.now();
    await translateTenant(worker, { tenantId: "bench", revision: tenant.revision });
    const ms = Math.round(performance.now() - start);
    const read = itemsRead;
    const after = await plane.store.tenants.get("bench");
    if (after.translatedRevision !== tenant.revision)
      throw new Error(`the job for revision ${tenant.revision} left the tenant translated at ${after.translatedRevision}`);
    return { ms, read, heads: await plane.store.snapshots.heads("bench", input.clusters) };
  };
  const cold = await job();
  const unpublished = input.clusters.filter((c) => (cold.heads.get(c)?.snapshot?.generation ?? 0) < 1);
  if (unpublished.length > 0) throw new Error(`the cold job published no snapshot for ${unpublished.length} clusters: ${unpublished.slice(0, 5).join(", ")}`);
  console.log(`cold job: ${cold.ms} ms, ${cold.read} items read`);
  const first = documents.find((d) => d.kind === "TrafficPolicy") as UserDocument & { kind: UserKind; spec: { policy: Record<string, unknown> } };
  await plane.store.resources.write(
    "bench",
    [{ doc: { ...first, spec: { ...first.spec, policy: { ...first.spec.policy, requestTimeout: "42s" } } } as UserDocument, mode: "apply" }],
    new Date().toISOString(),
  );
  const warm = await job();
  // The changed policy routes a service every cluster reaches through federation: some get a new snapshot.
  const republished = input.clusters.filter((c) => cold.heads.get(c)?.snapshot?.generation !== warm.heads.get(c)?.snapshot?.generation);
  if (republished.length === 0) throw new Error("one TrafficPolicy changed, and no cluster got a new snapshot");
  console.log(`one TrafficPolicy changed, warm job: ${warm.ms} ms, ${warm.read} items read (${((warm.read / tenantItems) * 100).toFixed(2)} % of the tenant)`);
  console.log(
    JSON.stringify({
      bench: "translate-job",
      clusters: shape.clusters,
      tenant_items: tenantItems,
      cold_items_read: cold.read,
      cold_job_ms: cold.ms,
      warm_items_read: warm.read,
      warm_read_pct: Math.round((warm.read / tenantItems) * 10_000) / 100,
      warm_job_ms: warm.ms,
    }),
  );
} finally {
  await plane.stop();
}
