import { DeleteCommand, GetCommand, TransactWriteCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { ConflictError, NotFoundError } from "../shared/errors";
import { batchGet, batchWrite, queryItems, queryKeys } from "./batch";
import { conditionHeld, transactionCancelled } from "./conditions";
import { clusterPk, keys, tenantPk } from "./keys";
import { type Page, type PageRequest, readPage } from "./page";
import type { StoreDeps } from "./resources";
import { type TokenInfo, tenantTokenItems } from "./tokens";

export interface Tenant {
  id: string;
  state: "active" | "deleting";
  /** Input revision: bumped by every change that can alter translation. */
  revision: number;
  /** The highest revision whose translation has been published. */
  translatedRevision: number;
  createdAt: string;
  /** How many changes went without a change-log entry (changes.ts); absent: none. */
  unloggedChanges?: number;
}

/** Tenants, as the operator manages them. */
export class TenantStore {
  constructor(private readonly deps: StoreDeps) {}

  /** Creates a tenant with its first admin token (returned once). ConflictError when the id is taken. */
  async create(tenantId: string, now: string): Promise<{ tenant: Tenant; adminToken: string; tokenInfo: TokenInfo }> {
    const tenant: Tenant = { id: tenantId, state: "active", revision: 0, translatedRevision: 0, createdAt: now };
    const { token, info, puts } = tenantTokenItems(this.deps.table, tenantId, { name: "initial-admin", role: "admin", createdBy: { kind: "operator" } }, now);
    try {
      await this.deps.doc.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: this.deps.table, Item: { ...keys.tenant(tenantId), ...tenant }, ConditionExpression: "attribute_not_exists(PK)" } },
            { Put: { TableName: this.deps.table, Item: { ...keys.tenantIndex(tenantId), id: tenantId, createdAt: now } } },
            ...puts,
          ],
        }),
      );
    } catch (error) {
      if (transactionCancelled(error)) throw new ConflictError(`tenant ${tenantId} already exists`, { cause: error });
      throw error;
    }
    return { tenant, adminToken: token, tokenInfo: info };
  }

  /** The tenant, or NotFoundError (also while it is being deleted). */
  async get(tenantId: string): Promise<Tenant> {
    const out = await this.deps.doc.send(new GetCommand({ TableName: this.deps.table, Key: keys.tenant(tenantId), ConsistentRead: true }));
    if (!out.Item || out.Item.state !== "active") throw new NotFoundError(`tenant ${tenantId} not found`);
    return toTenant(out.Item);
  }

  /**
   * Records that `revision` has been translated and published; never moves backwards, so a slow
   * worker finishing an older revision cannot hide a newer one.
   */
  async markTranslated(tenantId: string, revision: number): Promise<void> {
    await conditionHeld(
      this.deps.doc.send(
        new UpdateCommand({
          TableName: this.deps.table,
          Key: keys.tenant(tenantId),
          UpdateExpression: "SET translatedRevision = :r",
          ConditionExpression: "attribute_exists(PK) AND (attribute_not_exists(translatedRevision) OR translatedRevision < :r)",
          ExpressionAttributeValues: { ":r": revision },
        }),
      ),
    );
  }

  async list(): Promise<Tenant[]> {
    const index = await queryItems(this.deps.doc, this.deps.table, keys.tenantIndexPk, "", { consistentRead: false });
    const ids = index.map((i) => i.SK as string);
    const tenants = await Promise.all(ids.map((id) => this.get(id).catch(() => undefined)));
    return tenants.filter((t): t is Tenant => t !== undefined);
  }

  /**
   * One page of the active tenants, sorted by id, from after the id `request.after`. Tenants being
   * deleted are left out, so a page may be short.
   */
  async page(request: PageRequest): Promise<Page<Tenant>> {
    const { doc, table } = this.deps;
    // A tenant as listed is about 100 bytes: the limit alone keeps a page small.
    const ids = await readPage(doc, table, { pk: keys.tenantIndexPk, prefix: "", decode: (item) => ({ value: item.SK as string, bytes: 0 }) }, request);
    const records = await batchGet(
      doc,
      table,
      ids.items.map((id) => keys.tenant(id)),
      true,
    );
    const active = new Map(records.filter((r) => r.state === "active").map((r) => [r.id as string, toTenant(r)]));
    const items = ids.items.flatMap((id) => active.get(id) ?? []);
    return ids.next === undefined ? { items } : { items, next: ids.next };
  }

  /**
   * Deletes a tenant and everything under it. The tenant is first marked `deleting`, which makes
   * every credential and write of it fail at once; the sweep that follows is idempotent, so a crash
   * part-way is finished by calling delete again. Returns how much went with it (for the audit record).
   */
  async delete(tenantId: string): Promise<{ tokens: number; clusters: number; items: number }> {
    const marked = await conditionHeld(
      this.deps.doc.send(
        new UpdateCommand({
          TableName: this.deps.table,
          Key: keys.tenant(tenantId),
          UpdateExpression: "SET #s = :deleting",
          ConditionExpression: "attribute_exists(PK)",
          ExpressionAttributeNames: { "#s": "state" },
          ExpressionAttributeValues: { ":deleting": "deleting" },
        }),
      ),
    );
    if (!marked) throw new NotFoundError(`tenant ${tenantId} not found`);
    const { doc, table } = this.deps;
    // Credentials first, so nothing can authenticate into a half-deleted tenant.
    const tokens = await queryItems(doc, table, tenantPk(tenantId), keys.tokenRecordPrefix);
    await batchWrite(
      doc,
      table,
      tokens.map((t) => ({ DeleteRequest: { Key: keys.tokenLookup(t.hash as string) } })),
    );
    const clusters = await queryItems(doc, table, tenantPk(tenantId), keys.clusterPrefix);
    const bootstraps = clusters.filter((c) => c.bootstrapHash).map((c) => ({ DeleteRequest: { Key: keys.bootstrapLookup(c.bootstrapHash as string) } }));
    await batchWrite(doc, table, bootstraps);
    let items = tokens.length + bootstraps.length;
    for (const cluster of clusters) {
      const inCluster = await queryKeys(doc, table, clusterPk(tenantId, cluster.name as string));
      await batchWrite(
        doc,
        table,
        inCluster.map((Key) => ({ DeleteRequest: { Key } })),
      );
      items += inCluster.length;
    }
    const own = (await queryKeys(doc, table, tenantPk(tenantId))).filter((k) => k.SK !== "TENANT");
    await batchWrite(
      doc,
      table,
      own.map((Key) => ({ DeleteRequest: { Key } })),
    );
    await batchWrite(doc, table, [{ DeleteRequest: { Key: keys.tenantIndex(tenantId) } }]);
    await doc.send(new DeleteCommand({ TableName: table, Key: keys.tenant(tenantId) }));
    return { tokens: tokens.length, clusters: clusters.length, items: items + own.length + 2 };
  }
}

function toTenant(item: Record<string, unknown>): Tenant {
  return {
    id: item.id as string,
    state: item.state as Tenant["state"],
    revision: item.revision as number,
    translatedRevision: (item.translatedRevision as number | undefined) ?? 0,
    createdAt: item.createdAt as string,
    ...(typeof item.unloggedChanges === "number" ? { unloggedChanges: item.unloggedChanges } : {}),
  };
}
