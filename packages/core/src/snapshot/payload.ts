import { z } from "zod";

export const SNAPSHOT_TYPE = "meshplane-snapshot+jwt";

const generatedObject = z.looseObject({
  apiVersion: z.string().min(1),
  kind: z.string().min(1),
  metadata: z.looseObject({
    name: z.string().min(1),
    namespace: z.string().optional(),
    labels: z.record(z.string(), z.string()),
    annotations: z.record(z.string(), z.string()),
  }),
});

/** The signed payload of a snapshot (docs/pipeline.md#snapshots). */
export const snapshotPayload = z.strictObject({
  iss: z.string(),
  aud: z.string(),
  tenant: z.string(),
  cluster: z.string(),
  generation: z.number().int().min(1),
  iat: z.number().int(),
  exp: z.number().int(),
  hash: z.string().regex(/^sha256:[0-9a-f]{64}$/),
  objects: z.array(generatedObject),
  certificates: z.array(z.record(z.string(), z.unknown())),
});
export type SnapshotPayload = z.infer<typeof snapshotPayload>;

/**
 * The audience of a cluster's snapshots: only that cluster's agent accepts them. `incarnation` is
 * the random id the cluster got when it was created (the register answer names it), so a snapshot
 * of a deleted cluster — or of a deleted tenant's cluster — does not verify for a cluster re-created
 * under the same name, nor the other way round. Undefined only for a cluster created before
 * incarnations existed, whose snapshots keep the audience `<tenant>/<cluster>` (docs/pipeline.md).
 */
export const snapshotAudience = (tenant: string, cluster: string, incarnation?: string): string =>
  incarnation === undefined ? `${tenant}/${cluster}` : `${tenant}/${cluster}/${incarnation}`;

/** Entity tag of a snapshot version, as sent in ETag / If-None-Match (quotes included). */
export const snapshotEtag = (generation: number, hash: string): string => `"${generation}-${hash}"`;
