import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { AgentStore } from "./agents";
import { AppliedChangeStore } from "./applied-changes";
import { CaStore } from "./certificate-authorities";
import { ChangeLog } from "./changes";
import { ClusterStore } from "./clusters";
import { DiscoveredStore } from "./discovered";
import { MetricsHealthStore } from "./metrics-health";
import { PushConnectionStore } from "./push-connections";
import { RateLimitStore } from "./rate-limits";
import { ResourceStore } from "./resources";
import { SnapshotStore } from "./snapshots";
import { TenantStore } from "./tenants";
import { TokenStore } from "./tokens";

export interface Store {
  tenants: TenantStore;
  tokens: TokenStore;
  clusters: ClusterStore;
  resources: ResourceStore;
  discovered: DiscoveredStore;
  snapshots: SnapshotStore;
  agents: AgentStore;
  cas: CaStore;
  rateLimits: RateLimitStore;
  changes: ChangeLog;
  pushConnections: PushConnectionStore;
  appliedChanges: AppliedChangeStore;
  metricsHealth: MetricsHealthStore;
}

/** The whole store over one table. */
export function createStore(deps: { doc: DynamoDBDocumentClient; table: string; bootstrapTtlMs: number }): Store {
  return {
    tenants: new TenantStore(deps),
    tokens: new TokenStore(deps),
    clusters: new ClusterStore(deps),
    resources: new ResourceStore(deps),
    discovered: new DiscoveredStore(deps),
    snapshots: new SnapshotStore(deps),
    agents: new AgentStore(deps),
    cas: new CaStore(deps),
    rateLimits: new RateLimitStore(deps),
    changes: new ChangeLog(deps),
    pushConnections: new PushConnectionStore(deps),
    appliedChanges: new AppliedChangeStore(deps),
    metricsHealth: new MetricsHealthStore(deps),
  };
}

export type { Cluster, Bootstrap } from "./clusters";
export type { Tenant } from "./tenants";
export type { Principal, Role, TokenInfo } from "./tokens";
export type { WriteResult, DocumentWrite } from "./resources";
export type { ClusterHead, SnapshotHead } from "./snapshots";
export type { StoredReport } from "./agents";
export type { Authority, CaRecord } from "./certificate-authorities";
export { CHANGE_LOG_SLACK, type Change } from "./changes";
export type { StoredMetricsHealth } from "./metrics-health";
export type { AppliedChanges, AppliedResource } from "./applied-changes";
