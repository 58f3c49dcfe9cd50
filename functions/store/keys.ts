/**
 * Every DynamoDB key meshplane uses, built in one place. A tenant's data lives under partition keys
 * that begin `T#<tenant>`, so an IAM `dynamodb:LeadingKeys` condition can wall tenants off below the
 * application. Token and bootstrap lookups are the only partitions outside that prefix: they are read
 * before the tenant is known (the credential is what names it).
 */
import type { UserKind } from "@meshplane/core/base";

export type Key = {
  PK: string;
  SK: string;
};

export const tenantPk = (tenantId: string): string => `T#${tenantId}`;
export const clusterPk = (tenantId: string, cluster: string): string => `T#${tenantId}#C#${cluster}`;
/** The cluster a `clusterPk` of this tenant names. */
export const clusterOfPk = (tenantId: string, pk: string): string => pk.slice(clusterPk(tenantId, "").length);

export const keys = {
  tenant: (tenantId: string): Key => ({ PK: tenantPk(tenantId), SK: "TENANT" }),
  resource: (tenantId: string, kind: UserKind, name: string): Key => ({ PK: tenantPk(tenantId), SK: `R#${kind}#${name}` }),
  resourcePrefix: (kind: UserKind): string => `R#${kind}#`,
  cluster: (tenantId: string, cluster: string): Key => ({ PK: tenantPk(tenantId), SK: `C#${cluster}` }),
  clusterPrefix: "C#",
  tokenRecord: (tenantId: string, tokenId: string): Key => ({ PK: tenantPk(tenantId), SK: `K#${tokenId}` }),
  tokenRecordPrefix: "K#",
  /** Lookup of a presented credential by its SHA-256; never the token itself. */
  tokenLookup: (hash: string): Key => ({ PK: `TOKEN#${hash}`, SK: "TOKEN" }),
  bootstrapLookup: (hash: string): Key => ({ PK: `BOOT#${hash}`, SK: "BOOT" }),
  discovered: (tenantId: string, cluster: string, kind: string, name: string): Key => ({
    PK: clusterPk(tenantId, cluster),
    SK: `D#${kind}#${name}`,
  }),
  discoveredPrefix: (kind: string): string => `D#${kind}#`,
  /**
   * A cluster's hot item, read once per agent poll: snapshot head (generation, hash, chunk count)
   * and the agent's public key, together so authentication and the 304 check cost one read.
   */
  snapshotHead: (tenantId: string, cluster: string): Key => ({ PK: clusterPk(tenantId, cluster), SK: "S#HEAD" }),
  /** A snapshot body chunk (the gzipped JWS split under DynamoDB's 400 KB item limit). */
  snapshotChunk: (tenantId: string, cluster: string, generation: number, index: number): Key => ({
    PK: clusterPk(tenantId, cluster),
    SK: `S#${String(generation).padStart(10, "0")}#${String(index).padStart(4, "0")}`,
  }),
  snapshotChunkPrefix: (generation: number): string => `S#${String(generation).padStart(10, "0")}#`,
  /** The last status report of a cluster's agent. */
  agentReport: (tenantId: string, cluster: string): Key => ({ PK: clusterPk(tenantId, cluster), SK: "REPORT" }),
  /** A used agent JWT id, kept until the JWT would have expired anyway. */
  agentJti: (tenantId: string, cluster: string, jti: string): Key => ({ PK: clusterPk(tenantId, cluster), SK: `J#${jti}` }),
  /** A VirtualMesh's certificate authority (sealed keys, certificates, rotation phase). */
  certificateAuthority: (tenantId: string, virtualMesh: string): Key => ({ PK: tenantPk(tenantId), SK: `CA#${virtualMesh}` }),
  certificateAuthorityPrefix: "CA#",
  /**
   * A CSR a VirtualMesh's CA signed (by its SHA-256), kept as long as that CA (uid) lives, so a replay
   * is refused before the CA key is opened; deleted with the CA.
   */
  signedCsr: (tenantId: string, virtualMesh: string, uid: string, csrHash: string): Key => ({
    PK: tenantPk(tenantId),
    SK: `CSR#${virtualMesh}#${uid}#${csrHash}`,
  }),
  signedCsrPrefix: (virtualMesh: string): string => `CSR#${virtualMesh}#`,
  /** A push connection a cluster's agent holds on the API Gateway WebSocket API (docs/push.md). */
  pushConnection: (tenantId: string, cluster: string, connectionId: string): Key => ({ PK: clusterPk(tenantId, cluster), SK: `P#${connectionId}` }),
  pushConnectionPrefix: "P#",
  /**
   * Which cluster a push connection is of, by its id: a disconnect event names the connection only.
   * Outside the tenant prefix like the token lookups, since the id is all the event carries.
   */
  pushConnectionLookup: (connectionId: string): Key => ({ PK: `PUSH#${connectionId}`, SK: "PUSH" }),
  /** Registry of tenants for the operator's list; one item per tenant. */
  tenantIndex: (tenantId: string): Key => ({ PK: "TENANTS", SK: tenantId }),
  tenantIndexPk: "TENANTS",
  /** Marks that an operator credential exists (its hash lives in the token lookup). */
  operatorMarker: { PK: "OPERATOR", SK: "CREDENTIAL" } as Key,
  /** How a cluster's agent last fared reading its Prometheus, or why its last metrics report was refused. */
  metricsHealth: (tenantId: string, cluster: string): Key => ({ PK: clusterPk(tenantId, cluster), SK: "M#HEALTH" }),
  /**
   * Policy versions that reached a cluster with one applied generation (change markers,
   * docs/observability.md#change-impact), sorted by when (epoch seconds), so a window is one range
   * query; `part` splits what does not fit one item.
   */
  appliedChange: (tenantId: string, at: number, cluster: string, generation: number, part: number): Key => ({
    PK: tenantPk(tenantId),
    SK: `AC#${String(at).padStart(10, "0")}#${cluster}#${String(generation).padStart(10, "0")}#${part}`,
  }),
  appliedChangeAt: (at: number): string => `AC#${String(Math.max(0, Math.floor(at))).padStart(10, "0")}`,
  /**
   * How many resources a cluster has authored (docs/gitops.md#names-and-sources), kept with every
   * create and delete of one so a submit can be bounded without listing them; in the cluster's
   * partition, so deregistering the cluster forgets it.
   */
  authoredCount: (tenantId: string, cluster: string): Key => ({ PK: clusterPk(tenantId, cluster), SK: "A#COUNT" }),
  /** The policy versions a cluster's last applied generation carried, against which the next one's changes are told. */
  appliedVersions: (tenantId: string, cluster: string): Key => ({ PK: clusterPk(tenantId, cluster), SK: "AC#VERSIONS" }),
} as const;
