/**
 * Every DynamoDB key meshplane uses, built in one place. A tenant's data lives under partition keys
 * that begin `T#<tenant>`, so an IAM `dynamodb:LeadingKeys` condition can wall tenants off below the
 * application. Token and bootstrap lookups are the only partitions outside that prefix: they are read
 * before the tenant is known (the credential is what names it).
 */
import type { UserKind } from "@meshplane/core";

export type Key = {
  PK: string;
  SK: string;
};

export const tenantPk = (tenantId: string): string => `T#${tenantId}`;
export const clusterPk = (tenantId: string, cluster: string): string => `T#${tenantId}#C#${cluster}`;

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
  /** Registry of tenants for the operator's list; one item per tenant. */
  tenantIndex: (tenantId: string): Key => ({ PK: "TENANTS", SK: tenantId }),
  tenantIndexPk: "TENANTS",
  /** Marks that an operator credential exists (its hash lives in the token lookup). */
  operatorMarker: { PK: "OPERATOR", SK: "CREDENTIAL" } as Key,
} as const;
