import { GetCommand, TransactWriteCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { CertificateResult, DiscoveryResult, StatusReport } from "@meshplane/core/base";
import { UnauthorizedError } from "../shared/errors";
import { hashSecret } from "../shared/secrets";
import { DiscoveredStore } from "./discovered";
import { batchGet } from "./batch";
import { transactionCancelled } from "./conditions";
import { clusterOfPk, keys } from "./keys";
import type { StoreDeps } from "./resources";
import { writeWithRevision } from "./revision";
import { type ClusterHead, SnapshotStore } from "./snapshots";

/** A cluster's last status report, as the worker reads it to map failures back to policies. */
export interface StoredReport {
  generation: number;
  error?: string;
  failures: { apiVersion: string; kind: string; namespace?: string; name: string; error: string }[];
  /** All failures reported, of which `failures` holds the first ones. */
  failureCount?: number;
  /** The state of each shared-trust mesh's `cacerts`, as the agent last saw it. */
  certificates?: CertificateResult[];
  reportedAt: string;
}

/**
 * A report is one DynamoDB item (400 KB at most): keep the first failures, each message cut short.
 * The count of all failures is kept beside them.
 */
const MAX_STORED_FAILURES = 200;
const MAX_ERROR_CHARS = 1000;

/** The condition every agent write puts on the cluster's head: registered, and not being deregistered. */
export const AGENT_ACTIVE = "attribute_exists(agentKey) AND attribute_not_exists(deregistering)";

const agentGone = () => new UnauthorizedError("the cluster has no registered agent");

/**
 * lastSeenAt is written at most this often. Polls are read-only otherwise, so this is a cluster's one
 * steady write: 8,640 a month, where one a minute was 43,200 (README, "What it costs").
 */
export const SEEN_INTERVAL_MS = 5 * 60_000;

/** What agents change: their registration, discovery reports and apply reports. */
export class AgentStore {
  private readonly discovered: DiscoveredStore;
  private readonly snapshots: SnapshotStore;

  constructor(private readonly deps: StoreDeps) {
    this.discovered = new DiscoveredStore(deps);
    this.snapshots = new SnapshotStore(deps);
  }

  /**
   * Consumes a bootstrap token and binds `jwk` to its cluster, all in one transaction: a token works
   * once, and only while it has not expired. UnauthorizedError otherwise (never saying which).
   * Returns the cluster's incarnation for the agent to keep (undefined: a cluster created before
   * incarnations); the transaction holds only while the head is still of that incarnation.
   */
  async register(
    bootstrapToken: string,
    jwk: Record<string, unknown>,
    kid: string,
    now: Date,
  ): Promise<{ tenantId: string; cluster: string; incarnation?: string }> {
    const { doc, table } = this.deps;
    const hash = hashSecret(bootstrapToken);
    const lookup = (await doc.send(new GetCommand({ TableName: table, Key: keys.bootstrapLookup(hash), ConsistentRead: true }))).Item;
    if (!lookup || Date.parse(lookup.expiresAt as string) <= now.getTime()) throw new UnauthorizedError("the bootstrap token is unknown, used or expired");
    const tenantId = lookup.tenantId as string;
    const cluster = lookup.cluster as string;
    const incarnation = (await this.snapshots.head(tenantId, cluster, true))?.incarnation;
    try {
      await doc.send(
        new TransactWriteCommand({
          TransactItems: [
            { Delete: { TableName: table, Key: keys.bootstrapLookup(hash), ConditionExpression: "attribute_exists(PK)" } },
            {
              Update: {
                TableName: table,
                Key: keys.cluster(tenantId, cluster),
                UpdateExpression: "SET #s = :registered, registeredAt = :now REMOVE bootstrapHash, bootstrapExpiresAt",
                ConditionExpression: "bootstrapHash = :h",
                ExpressionAttributeNames: { "#s": "state" },
                ExpressionAttributeValues: { ":registered": "registered", ":now": now.toISOString(), ":h": hash },
              },
            },
            SnapshotStore.agentKeyUpdate(table, tenantId, cluster, jwk, kid, incarnation),
          ],
        }),
      );
    } catch (error) {
      if (transactionCancelled(error)) throw new UnauthorizedError("the bootstrap token is unknown, used or expired", { cause: error });
      throw error;
    }
    return { tenantId, cluster, ...(incarnation ? { incarnation } : {}) };
  }

  /**
   * Stores a discovery report when its content hash differs from the last one, with a revision bump
   * (the caller enqueues). Returns the revision, or undefined when nothing changed.
   */
  async recordDiscovery(tenantId: string, cluster: string, result: DiscoveryResult, hash: string, head: ClusterHead | undefined): Promise<number | undefined> {
    if (head?.discoveryHash === hash) return undefined;
    const written = await this.discovered.replace(tenantId, cluster, result);
    try {
      return await writeWithRevision(this.deps.doc, this.deps.table, tenantId, () => ({
        items: [
          {
            Update: {
              TableName: this.deps.table,
              Key: keys.snapshotHead(tenantId, cluster),
              UpdateExpression: "SET discoveryHash = :h",
              ConditionExpression: AGENT_ACTIVE,
              ExpressionAttributeValues: { ":h": hash },
            },
          },
        ],
        onConditionFailed: () => new UnauthorizedError("the cluster has no registered agent"),
        changes: [{ type: "discovery", cluster }],
      }));
    } catch (error) {
      // Deregistered meanwhile: what this report wrote after the purge listed the partition would
      // outlive the cluster.
      if (error instanceof UnauthorizedError) await this.discovered.remove(written);
      throw error;
    }
  }

  /**
   * Stores an apply report. The revision is bumped only when what it says changed (generation,
   * failures, error, certificates), so heartbeats cost one write and no translation.
   */
  async recordReport(tenantId: string, cluster: string, report: StatusReport, contentHash: string, now: Date): Promise<number | undefined> {
    const { doc, table } = this.deps;
    const previous = (await doc.send(new GetCommand({ TableName: table, Key: keys.agentReport(tenantId, cluster), ConsistentRead: true }))).Item;
    const failed = report.results.filter((r) => r.state === "failed");
    const stored: StoredReport = {
      generation: report.generation,
      ...(report.error ? { error: report.error.slice(0, MAX_ERROR_CHARS) } : {}),
      failures: failed.slice(0, MAX_STORED_FAILURES).map((r) => ({
        apiVersion: r.apiVersion,
        kind: r.kind,
        ...(r.namespace ? { namespace: r.namespace } : {}),
        name: r.name,
        error: (r.error ?? "rejected").slice(0, MAX_ERROR_CHARS),
      })),
      failureCount: failed.length,
      ...(report.certificates ? { certificates: report.certificates.map((r) => (r.error ? { ...r, error: r.error.slice(0, MAX_ERROR_CHARS) } : r)) } : {}),
      reportedAt: now.toISOString(),
    };
    const seen = {
      Update: {
        TableName: table,
        Key: keys.snapshotHead(tenantId, cluster),
        UpdateExpression: "SET appliedGeneration = :g, lastSeenAt = :now",
        ConditionExpression: AGENT_ACTIVE,
        ExpressionAttributeValues: { ":g": report.generation, ":now": now.toISOString() },
      },
    };
    const put = { Put: { TableName: table, Item: { ...keys.agentReport(tenantId, cluster), ...stored, contentHash } } };
    if (previous?.contentHash === contentHash) {
      try {
        await doc.send(new TransactWriteCommand({ TransactItems: [put, seen] }));
      } catch (error) {
        if (transactionCancelled(error)) throw agentGone();
        throw error;
      }
      return undefined;
    }
    // Reports are read afresh by every translate job: nothing for the change log to name.
    return writeWithRevision(doc, table, tenantId, () => ({
      items: [put, seen],
      onConditionFailed: (i) => (i === 1 ? agentGone() : undefined),
      changes: [{ type: "none" }],
    }));
  }

  /** Last reports of the given clusters. */
  async reports(tenantId: string, clusters: readonly string[]): Promise<Map<string, StoredReport>> {
    const items = await batchGet(
      this.deps.doc,
      this.deps.table,
      clusters.map((c) => keys.agentReport(tenantId, c)),
      false,
    );
    return new Map(items.map((item) => [clusterOfPk(tenantId, item.PK as string), item as unknown as StoredReport]));
  }

  /** Records that the agent was seen, at most once a minute. */
  async seen(tenantId: string, cluster: string, head: ClusterHead, now: Date): Promise<void> {
    const last = head.lastSeenAt ? Date.parse(head.lastSeenAt) : 0;
    if (now.getTime() - last < SEEN_INTERVAL_MS) return;
    await this.deps.doc
      .send(
        new UpdateCommand({
          TableName: this.deps.table,
          Key: keys.snapshotHead(tenantId, cluster),
          UpdateExpression: "SET lastSeenAt = :now",
          ExpressionAttributeValues: { ":now": now.toISOString() },
        }),
      )
      .catch(() => undefined);
  }
}
