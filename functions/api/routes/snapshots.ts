import { gunzipSync } from "node:zlib";
import {
  type KubeObject,
  type ResourceStatus,
  type SnapshotPayload,
  type StoredResource,
  type TranslateInput,
  canonicalJson,
  translate,
} from "@meshplane/core";
import { z } from "zod";
import type { Signer } from "../../signer/signer";
import type { DocumentWrite, SnapshotHead, Store } from "../../store/index";
import { loadTranslateInput } from "../../worker/load-input";
import { DOCUMENT_BODY_TYPES, type Route, route } from "../route";
import { applyBody } from "../schemas";
import { validateDocuments } from "./apply";

export interface SnapshotDeps {
  store: Store;
  signer: Signer;
  now: () => Date;
}

/** The payload of a stored snapshot (the control plane reads its own signed bytes back). */
async function storedPayload(store: Store, tenantId: string, cluster: string, head: SnapshotHead): Promise<SnapshotPayload> {
  const jws = gunzipSync(await store.snapshots.body(tenantId, cluster, head)).toString();
  return JSON.parse(Buffer.from(jws.split(".")[1] as string, "base64url").toString()) as SnapshotPayload;
}

const id = (o: KubeObject) => `${o.kind}/${o.metadata.namespace ?? ""}/${o.metadata.name}`;

/** Overlays the planned documents on the stored resources, as a write would leave them. */
function overlay(input: TranslateInput, writes: DocumentWrite[], now: string): TranslateInput {
  const lists = { VirtualMesh: [...input.virtualMeshes], TrafficPolicy: [...input.trafficPolicies], AccessPolicy: [...input.accessPolicies] } as Record<string, StoredResource[]>;
  for (const { doc } of writes) {
    const list = lists[doc.kind] as StoredResource[];
    const i = list.findIndex((r) => r.metadata.name === doc.metadata.name);
    const existing = list[i];
    const generation = existing ? existing.metadata.generation + (canonicalJson(existing.spec) === canonicalJson(doc.spec) ? 0 : 1) : 1;
    const next = {
      apiVersion: doc.apiVersion,
      kind: doc.kind,
      metadata: { name: doc.metadata.name, ...(doc.metadata.labels ? { labels: doc.metadata.labels } : {}), uid: existing?.metadata.uid ?? "planned", generation, resourceVersion: "planned", createdAt: existing?.metadata.createdAt ?? now, updatedAt: now },
      spec: doc.spec,
      status: existing?.status ?? { observedGeneration: generation, state: "PENDING" },
    } as StoredResource;
    if (existing) list[i] = next;
    else list.push(next);
  }
  return {
    ...input,
    virtualMeshes: lists.VirtualMesh as StoredResource<"VirtualMesh">[],
    trafficPolicies: lists.TrafficPolicy as StoredResource<"TrafficPolicy">[],
    accessPolicies: lists.AccessPolicy as StoredResource<"AccessPolicy">[],
  };
}

const planResult = z.object({
  clusters: z.record(z.string(), z.object({ added: z.array(z.unknown()), changed: z.array(z.unknown()), removed: z.array(z.object({ apiVersion: z.string(), kind: z.string(), namespace: z.string().optional(), name: z.string() })) })),
  statuses: z.record(z.string(), z.unknown()),
});

/** JWKS, what a cluster gets, and a dry-run plan of a change. */
export function snapshotRoutes(deps: SnapshotDeps): Route[] {
  const { store } = deps;
  return [
    route({
      method: "get", path: "/.well-known/jwks.json", tag: "agent", access: "public",
      summary: "Public keys that sign snapshots (the active one first, then those kept for rotation)",
      responses: { 200: { description: "a JWK set" } },
      handler: async (c) => c.json(await deps.signer.jwks(), 200, { "cache-control": "public, max-age=300" }),
    }),
    route({
      method: "get", path: "/v1/clusters/{name}/snapshot", tag: "clusters", access: "viewer",
      summary: "What the cluster gets: objects, generation, the generation its agent applied, sync state",
      responses: { 200: { description: "the snapshot" } },
      handler: async (c) => {
        const tenantId = c.get("tenantId");
        const name = c.req.param("name") as string;
        await store.clusters.get(tenantId, name);
        const head = await store.snapshots.head(tenantId, name, true);
        const report = (await store.agents.reports(tenantId, [name])).get(name);
        const snapshot = head?.snapshot;
        const payload = snapshot ? await storedPayload(store, tenantId, name, snapshot) : undefined;
        return c.json({
          cluster: name,
          generation: snapshot?.generation ?? 0,
          hash: snapshot?.hash ?? null,
          signedAt: snapshot?.signedAt ?? null,
          appliedGeneration: head?.appliedGeneration ?? 0,
          inSync: (head?.appliedGeneration ?? 0) === (snapshot?.generation ?? 0) && (report?.failures.length ?? 0) === 0,
          lastSeenAt: head?.lastSeenAt ?? null,
          failures: report?.failures ?? [],
          agentError: report?.error ?? null,
          objects: payload?.objects ?? [],
          certificates: payload?.certificates ?? [],
        });
      },
    }),
    route({
      method: "post", path: "/v1/plan", tag: "apply", access: "viewer",
      summary: "What each cluster's snapshot and each policy's status would become with these documents; nothing is stored",
      body: applyBody,
      bodyTypes: DOCUMENT_BODY_TYPES,
      responses: { 200: { description: "per-cluster changes and statuses", schema: planResult } },
      handler: async (c, { body }) => {
        const tenantId = c.get("tenantId");
        const writes = validateDocuments(body.documents);
        const input = overlay(await loadTranslateInput(store, tenantId), writes, deps.now().toISOString());
        const output = translate(input);
        const heads = await store.snapshots.heads(tenantId, input.clusters);
        const clusters: z.infer<typeof planResult>["clusters"] = {};
        for (const [cluster, out] of Object.entries(output.clusters)) {
          const head = heads.get(cluster)?.snapshot;
          const before = new Map((head ? (await storedPayload(store, tenantId, cluster, head)).objects : []).map((o) => [id(o as KubeObject), o as KubeObject]));
          const after = new Map(out.objects.map((o) => [id(o), o]));
          clusters[cluster] = {
            added: [...after].filter(([k]) => !before.has(k)).map(([, o]) => o),
            changed: [...after].filter(([k, o]) => before.has(k) && canonicalJson(before.get(k)) !== canonicalJson(o)).map(([, o]) => o),
            removed: [...before].filter(([k]) => !after.has(k)).map(([, o]) => ({ apiVersion: o.apiVersion, kind: o.kind, ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}), name: o.metadata.name })),
          };
        }
        const statuses: Record<string, ResourceStatus> = output.statuses;
        return c.json({ clusters, statuses });
      },
    }),
  ];
}
