import { DeleteCommand, GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import type { KeyAlgorithm } from "@meshplane/core/pki";
import type { RotationPhase } from "@meshplane/core/translate";
import { ConflictError } from "../shared/errors";
import { batchWrite, queryItems, queryKeys } from "./batch";
import { conditionFailed } from "./conditions";
import { keys, tenantPk } from "./keys";
import type { StoreDeps } from "./resources";
import { writeWithRevision } from "./revision";

/**
 * A private key sealed for storage (envelope encryption): the key is encrypted with a fresh data key
 * (AES-256-GCM, the encryption context as additional data), and the data key is stored only wrapped
 * by a key-encryption key that never leaves its keeper (KMS, or the local KEK file).
 */
export interface SealedKey {
  alg: "A256GCM";
  /** Which key-encryption key wrapped the data key (a KMS key ARN, or "local"). */
  kek: string;
  wrappedKey: string;
  iv: string;
  ciphertext: string;
  tag: string;
}

/** One certificate that signs intermediates, with the chain up to its root and its sealed key. */
export interface Authority {
  /** The signing certificate (for a generated CA, the root itself). */
  issuerPem: string;
  issuerFingerprint: string;
  /** The signing certificate, then its issuers up to and including the root. */
  chainPem: string;
  rootPem: string;
  rootFingerprint: string;
  /** The signing certificate's expiry (ISO 8601); intermediates never outlive it. */
  notAfter: string;
  rootNotAfter: string;
  key: SealedKey;
}

/**
 * A VirtualMesh's certificate authority. `authorities` holds one authority, or two during a root
 * rotation (the old one first). Private keys are only ever stored sealed (`SealedKey`).
 */
export interface CaRecord {
  virtualMesh: string;
  /** uid of the VirtualMesh it was made for: a re-created VirtualMesh gets a new CA. */
  uid: string;
  kind: "generated" | "external";
  keyAlgorithm: KeyAlgorithm;
  state: "READY" | "AWAITING_CERTIFICATE";
  phase: RotationPhase;
  authorities: Authority[];
  /** Bring your own PKI: meshplane's signing key and its CSR, waiting for the user's signature. */
  pending?: { csrPem: string; key: SealedKey; publicKeySpki: string };
  /** Set by `POST .../ca/rotate`; the worker then makes a new root. */
  rotationRequested?: boolean;
  /** Bumped on every write, for optimistic concurrency. */
  version: number;
  updatedAt: string;
}

/** Certificate authorities of VirtualMeshes, and the CSRs each has signed. */
export class CaStore {
  constructor(private readonly deps: StoreDeps) {}

  async get(tenantId: string, virtualMesh: string): Promise<CaRecord | undefined> {
    const out = await this.deps.doc.send(
      new GetCommand({ TableName: this.deps.table, Key: keys.certificateAuthority(tenantId, virtualMesh), ConsistentRead: true }),
    );
    return out.Item === undefined ? undefined : strip(out.Item);
  }

  async list(tenantId: string): Promise<CaRecord[]> {
    return (await queryItems(this.deps.doc, this.deps.table, tenantPk(tenantId), keys.certificateAuthorityPrefix)).map(strip);
  }

  /**
   * Writes `next` when the stored record is still at `expectedVersion` (undefined: absent), bumping
   * the version. ConflictError when another writer got there first.
   */
  async put(tenantId: string, next: Omit<CaRecord, "version">, expectedVersion: number | undefined): Promise<CaRecord> {
    const record = { ...next, version: (expectedVersion ?? 0) + 1 };
    try {
      await this.deps.doc.send(
        new PutCommand({
          TableName: this.deps.table,
          Item: { ...keys.certificateAuthority(tenantId, next.virtualMesh), ...record },
          ConditionExpression: expectedVersion === undefined ? "attribute_not_exists(PK)" : "version = :v",
          ...(expectedVersion === undefined ? {} : { ExpressionAttributeValues: { ":v": expectedVersion } }),
        }),
      );
    } catch (error) {
      if (conditionFailed(error)) throw new ConflictError(`the CA of VirtualMesh ${next.virtualMesh} changed meanwhile`, { cause: error });
      throw error;
    }
    return record;
  }

  /**
   * As `put`, in one transaction with a bump of the tenant's input revision (the caller enqueues a
   * translation): for changes users make, which must reach the agents.
   */
  async putAndBump(tenantId: string, next: Omit<CaRecord, "version">, expectedVersion: number): Promise<{ record: CaRecord; revision: number }> {
    const record = { ...next, version: expectedVersion + 1 };
    const revision = await writeWithRevision(this.deps.doc, this.deps.table, tenantId, () => ({
      items: [
        {
          Put: {
            TableName: this.deps.table,
            Item: { ...keys.certificateAuthority(tenantId, next.virtualMesh), ...record },
            ConditionExpression: "version = :v",
            ExpressionAttributeValues: { ":v": expectedVersion },
          },
        },
      ],
      onConditionFailed: () => new ConflictError(`the CA of VirtualMesh ${next.virtualMesh} changed meanwhile; retry`),
      // Every translate job reads the CAs afresh.
      changes: [{ type: "none" }],
    }));
    return { record, revision };
  }

  /** Destroys a CA, sealed keys included, and then the CSRs it signed (a new CA starts with none). */
  async delete(tenantId: string, virtualMesh: string): Promise<void> {
    await this.deps.doc.send(new DeleteCommand({ TableName: this.deps.table, Key: keys.certificateAuthority(tenantId, virtualMesh) }));
    const signed = await queryKeys(this.deps.doc, this.deps.table, tenantPk(tenantId), keys.signedCsrPrefix(virtualMesh));
    await batchWrite(
      this.deps.doc,
      this.deps.table,
      signed.map((Key) => ({ DeleteRequest: { Key } })),
    );
  }

  /**
   * Claims a CSR (by its SHA-256) for the CA `uid` of `virtualMesh` before anything is signed: one
   * conditional write, so of two requests with one CSR exactly one gets on. Every CSR is remembered
   * for the CA's lifetime (deleted with it). ConflictError when the CSR was claimed before.
   */
  async claimCsr(tenantId: string, virtualMesh: string, uid: string, csrHash: string, by: { cluster: string; mesh: string }, now: Date): Promise<void> {
    try {
      await this.deps.doc.send(
        new PutCommand({
          TableName: this.deps.table,
          Item: { ...keys.signedCsr(tenantId, virtualMesh, uid, csrHash), cluster: by.cluster, mesh: by.mesh, signedAt: now.toISOString() },
          ConditionExpression: "attribute_not_exists(PK)",
        }),
      );
    } catch (error) {
      if (conditionFailed(error))
        throw new ConflictError(`this CSR was already presented for mesh ${by.mesh}; make a new key and CSR for a new intermediate`, { cause: error });
      throw error;
    }
  }

  /** Gives back a claim whose signing then failed (the CSR was refused): nothing was issued for it. */
  async releaseCsr(tenantId: string, virtualMesh: string, uid: string, csrHash: string): Promise<void> {
    await this.deps.doc.send(new DeleteCommand({ TableName: this.deps.table, Key: keys.signedCsr(tenantId, virtualMesh, uid, csrHash) }));
  }
}

function strip(item: Record<string, unknown>): CaRecord {
  const { PK: _pk, SK: _sk, ...rest } = item;
  return rest as unknown as CaRecord;
}
