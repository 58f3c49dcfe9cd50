/**
 * What the metrics store keeps and gives back (docs/observability.md#where-it-is-kept): the contract
 * between the write side (`ingest.ts`, `objects/`) and the read side (`read/`). Rows keep the edge as
 * the reporting cluster's agent saw it (Istio cluster IDs, its view); the reader maps IDs to clusters
 * and chooses between views.
 */
import type { MetricsEdge, MetricsSourceHealth, Signals } from "@meshplane/core/base";

/** One cluster's counts for one bucket of time. */
export interface StoredBucket {
  /** The bucket's start, epoch seconds. */
  start: number;
  /** 60 (minute resolution) or 3600 (hourly roll-up). */
  seconds: 60 | 3600;
  /** The cluster whose agent reported it (the one it authenticated as). */
  cluster: string;
  /** That cluster's own Istio cluster ID, as its agent reported it. */
  istioClusterId: string;
  rows: StoredRow[];
  /** Traffic of edges beyond the report's named ones, summed; `edges`: how many. */
  other?: { edges: number; signals: Signals };
}

export interface StoredRow {
  edge: MetricsEdge;
  signals: Signals;
}

/** The latest word of a cluster's agent on reading its Prometheus. */
export interface MetricsHealth extends MetricsSourceHealth {
  cluster: string;
  /** When the report that said it arrived (RFC 3339). */
  at: string;
}

/** The read side's view of the store. */
export interface MetricsReader {
  /**
   * Every cluster's buckets of `tenantId` that start in [from, to) (epoch seconds): minute buckets
   * where they are still kept, hourly ones before that (docs/observability.md#where-it-is-kept). Of
   * two reports of one cluster's minute, the later (`generatedAt`) only.
   */
  buckets(tenantId: string, from: number, to: number): Promise<StoredBucket[]>;
}
