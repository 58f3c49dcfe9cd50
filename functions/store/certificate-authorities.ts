import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { KeyAlgorithm } from "@meshplane/core/pki";
import type { RotationPhase } from "@meshplane/core/translate";
import type { SealedKey } from "../pki/key-vault";
import { ConflictError } from "../shared/errors";
import { queryItems } from "./batch";
import { keys, tenantPk } from "./keys";
import type { StoreDeps } from "./resources";
import { writeWithRevision } from "./revision";

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

/** Certificate authorities of VirtualMeshes, and the CSRs signed per mesh. */
export class CaStore {
  constructor(private readonly deps: StoreDeps) {}

  async get(tenantId: string, virtualMesh: string): Promise<CaRecord | undefined> {
    const out = await this.deps.doc.send(new GetCommand({ TableName: this.deps.table, Key: keys.certificateAuthority(tenantId, virtualMesh), ConsistentRead: true }));
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
      if ((error as { name?: string }).name === "ConditionalCheckFailedException") throw new ConflictError(`the CA of VirtualMesh ${next.virtualMesh} changed meanwhile`, { cause: error });
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

  /** Destroys a CA, sealed keys included. */
  async delete(tenantId: string, virtualMesh: string): Promise<void> {
    await this.deps.doc.send(new DeleteCommand({ TableName: this.deps.table, Key: keys.certificateAuthority(tenantId, virtualMesh) }));
  }

  /**
   * Records that a CSR (by its SHA-256) was signed for `mesh` of `cluster`, refusing one signed
   * before: a replayed request gets nothing. Keeps the last 16 hashes.
   */
  async recordIssued(tenantId: string, cluster: string, mesh: string, csrHash: string, now: Date): Promise<void> {
    const key = keys.issuedTo(tenantId, cluster, mesh);
    const previous = (await this.deps.doc.send(new GetCommand({ TableName: this.deps.table, Key: key, ConsistentRead: true }))).Item;
    const hashes = (previous?.csrHashes as string[] | undefined) ?? [];
    if (hashes.includes(csrHash)) throw new ConflictError(`this CSR was already signed for mesh ${mesh}; make a new key and CSR for a new intermediate`);
    await this.deps.doc.send(
      new UpdateCommand({
        TableName: this.deps.table,
        Key: key,
        UpdateExpression: "SET csrHashes = :h, issuedAt = :now",
        ConditionExpression: previous === undefined ? "attribute_not_exists(PK)" : "issuedAt = :prev",
        ExpressionAttributeValues: { ":h": [...hashes, csrHash].slice(-16), ":now": now.toISOString(), ...(previous === undefined ? {} : { ":prev": previous.issuedAt }) },
      }),
    ).catch((error: unknown) => {
      if ((error as { name?: string }).name === "ConditionalCheckFailedException") throw new ConflictError(`another CSR for mesh ${mesh} was signed meanwhile; retry`, { cause: error });
      throw error;
    });
  }
}

function strip(item: Record<string, unknown>): CaRecord {
  const { PK: _pk, SK: _sk, ...rest } = item;
  return rest as unknown as CaRecord;
}
