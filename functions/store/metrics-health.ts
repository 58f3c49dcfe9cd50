import { GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { batchGet } from "./batch";
import { keys } from "./keys";
import type { StoreDeps } from "./resources";

/**
 * A cluster's metrics health as the API shows it (clusterView.metrics): what its agent said of reading
 * Prometheus, or `refused` with the reason the control plane refused its last report. `at`: when the
 * state began (it is written only when it changes).
 */
export interface StoredMetricsHealth {
  state: "ok" | "partial" | "unavailable" | "refused";
  message?: string;
  at: string;
}

const ITEM_FIELDS = ["state", "message", "at"] as const;

function fromItem(item: Record<string, unknown> | undefined): StoredMetricsHealth | undefined {
  if (item === undefined) return undefined;
  const health: StoredMetricsHealth = { state: item.state as StoredMetricsHealth["state"], at: item.at as string };
  if (typeof item.message === "string") health.message = item.message;
  return health;
}

/**
 * One small item per cluster (`T#<tenant>#C#<cluster>`, `M#HEALTH`), so deregistering the cluster
 * purges it with the rest of its partition. Written by the metrics route only when the state or the
 * message changes (docs/observability.md#where-it-is-kept).
 */
export class MetricsHealthStore {
  constructor(private readonly deps: StoreDeps) {}

  /** The cluster's health, or undefined when its agent never sent metrics. */
  async get(tenantId: string, cluster: string): Promise<StoredMetricsHealth | undefined> {
    const { doc, table } = this.deps;
    return fromItem((await doc.send(new GetCommand({ TableName: table, Key: keys.metricsHealth(tenantId, cluster) }))).Item);
  }

  /** The health of each of `clusters` that has one, by cluster name: one batch read. */
  async many(tenantId: string, clusters: readonly string[]): Promise<Map<string, StoredMetricsHealth>> {
    const { doc, table } = this.deps;
    const items = await batchGet(
      doc,
      table,
      clusters.map((cl) => keys.metricsHealth(tenantId, cl)),
      false,
    );
    const out = new Map<string, StoredMetricsHealth>();
    for (const item of items) {
      const health = fromItem(item);
      if (health) out.set(item.cluster as string, health);
    }
    return out;
  }

  /** Replaces the cluster's health. */
  async put(tenantId: string, cluster: string, health: StoredMetricsHealth): Promise<void> {
    const { doc, table } = this.deps;
    const item: Record<string, unknown> = { ...keys.metricsHealth(tenantId, cluster), cluster };
    for (const field of ITEM_FIELDS) if (health[field] !== undefined) item[field] = health[field];
    await doc.send(new PutCommand({ TableName: table, Item: item }));
  }
}
