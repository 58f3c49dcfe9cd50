import { GetCommand, TransactWriteCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { TOKEN_ROLES } from "@meshplane/core/base";
import { ConflictError, NotFoundError } from "../shared/errors";
import { TOKEN_PREFIX, hashSecret, newId, newSecret } from "../shared/secrets";
import { queryItems } from "./batch";
import { failedConditions, transactionCancelled } from "./conditions";
import { keys, tenantPk } from "./keys";
import type { Page, PageRequest } from "./page";
import type { StoreDeps } from "./resources";
import { TTL_ATTRIBUTE } from "./table";

/** A token's role: the roles are core's (docs/api.md, "Credentials and roles"). */
export type Role = (typeof TOKEN_ROLES)[number];

/**
 * Who minted a token: the operator (a tenant's first admin token, or recovery through
 * `POST /v1/tenants/{id}/tokens`), or the tenant's own admin token `tokenId`.
 */
export type TokenCreator = { kind: "operator" } | { kind: "tenant"; tokenId: string };

/** A token as listed: never the secret, never its hash. */
export interface TokenInfo {
  id: string;
  name: string;
  role: Role;
  createdAt: string;
  /** Absent only on tokens minted before it was recorded. */
  createdBy?: TokenCreator;
  expiresAt?: string;
  lastUsedAt?: string;
}

/** What a presented credential resolves to. */
export type Principal = { kind: "operator"; tokenId: string } | { kind: "tenant"; tenantId: string; role: Role; tokenId: string };

/** How often `lastUsedAt` is written at most: every request would double the write cost of reads. */
const TOUCH_INTERVAL_MS = 60_000;

type Item = Record<string, unknown>;

export interface NewToken {
  name: string;
  role: Role;
  createdBy: TokenCreator;
  expiresAt?: string;
}

/** Builds the two items of a tenant token: the listable record and the lookup by hash. */
export function tenantTokenItems(table: string, tenantId: string, input: NewToken, now: string): { token: string; info: TokenInfo; puts: Item[] } {
  const token = newSecret(TOKEN_PREFIX.tenant);
  const hash = hashSecret(token);
  const info: TokenInfo = {
    id: newId(),
    name: input.name,
    role: input.role,
    createdAt: now,
    createdBy: input.createdBy,
    ...(input.expiresAt ? { expiresAt: input.expiresAt } : {}),
  };
  const ttl = input.expiresAt ? { [TTL_ATTRIBUTE]: Math.floor(Date.parse(input.expiresAt) / 1000) + 86_400 } : {};
  return {
    token,
    info,
    puts: [
      { Put: { TableName: table, Item: { ...keys.tokenRecord(tenantId, info.id), ...info, hash, ...ttl }, ConditionExpression: "attribute_not_exists(PK)" } },
      {
        Put: {
          TableName: table,
          Item: {
            ...keys.tokenLookup(hash),
            kind: "tenant",
            tenantId,
            tokenId: info.id,
            role: info.role,
            ...(info.expiresAt ? { expiresAt: info.expiresAt } : {}),
            ...ttl,
          },
          ConditionExpression: "attribute_not_exists(PK)",
        },
      },
    ],
  };
}

/** API tokens of tenants and the operator credential; secrets exist only as SHA-256. */
export class TokenStore {
  constructor(private readonly deps: StoreDeps) {}

  /** Creates a tenant token; the returned secret is the only copy there will ever be. */
  async create(tenantId: string, input: NewToken, now: string): Promise<{ token: string; info: TokenInfo }> {
    const { token, info, puts } = tenantTokenItems(this.deps.table, tenantId, input, now);
    try {
      await this.deps.doc.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              ConditionCheck: {
                TableName: this.deps.table,
                Key: keys.tenant(tenantId),
                ConditionExpression: "#s = :active",
                ExpressionAttributeNames: { "#s": "state" },
                ExpressionAttributeValues: { ":active": "active" },
              },
            },
            ...puts,
          ],
        }),
      );
    } catch (error) {
      if (transactionCancelled(error)) throw new NotFoundError(`tenant ${tenantId} not found`, { cause: error });
      throw error;
    }
    return { token, info };
  }

  /** Every token of the tenant, oldest first (all of them: a single query would stop at 1 MB). */
  async list(tenantId: string): Promise<TokenInfo[]> {
    const items = await queryItems(this.deps.doc, this.deps.table, tenantPk(tenantId), keys.tokenRecordPrefix);
    return items.map(toInfo).sort((a, b) => compare(tokenPosition(a), tokenPosition(b)));
  }

  /**
   * One page of the tenant's tokens in creation order, from after the position `request.after`
   * (a previous page's `next`: creation time and id). Tokens are few and small, so they are read
   * whole and paged here: the order people expect (oldest first) is not the order of their keys.
   */
  async page(tenantId: string, request: PageRequest): Promise<Page<TokenInfo>> {
    const after = request.after;
    const rest = (await this.list(tenantId)).filter((t) => after === undefined || tokenPosition(t) > after);
    const items = rest.slice(0, request.limit);
    const last = items.at(-1);
    return rest.length > items.length && last !== undefined ? { items, next: tokenPosition(last) } : { items };
  }

  /**
   * Revokes at once: both items go in one transaction, so the secret stops working immediately.
   * The tenant's last valid admin token cannot be revoked (ConflictError): nobody could then manage
   * the tenant's tokens. The transaction checks that another valid admin token still exists, so two
   * admins revoking each other at the same moment cannot both succeed; a lost race is re-judged.
   */
  async revoke(tenantId: string, tokenId: string, now: Date): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const record = await this.deps.doc.send(new GetCommand({ TableName: this.deps.table, Key: keys.tokenRecord(tenantId, tokenId), ConsistentRead: true }));
      if (!record.Item) throw new NotFoundError(`token ${tokenId} not found`);
      const guard = record.Item.role === "admin" ? await this.otherAdminCheck(tenantId, tokenId, now) : [];
      try {
        await this.deps.doc.send(
          new TransactWriteCommand({
            TransactItems: [
              { Delete: { TableName: this.deps.table, Key: keys.tokenRecord(tenantId, tokenId), ConditionExpression: "attribute_exists(PK)" } },
              { Delete: { TableName: this.deps.table, Key: keys.tokenLookup(record.Item.hash as string) } },
              ...guard,
            ],
          }),
        );
        return;
      } catch (error) {
        if (!transactionCancelled(error)) throw error;
        if (attempt >= 5) throw new ConflictError("tokens of this tenant are changing concurrently; try again", { cause: error });
      }
    }
  }

  /** A condition that another admin token of the tenant exists and has not expired; ConflictError when there is none. */
  private async otherAdminCheck(tenantId: string, tokenId: string, now: Date) {
    const nowIso = now.toISOString();
    const other = (await this.list(tenantId)).find((t) => t.role === "admin" && t.id !== tokenId && (t.expiresAt === undefined || t.expiresAt > nowIso));
    if (other === undefined) {
      throw new ConflictError(
        "this is the tenant's last valid admin token; revoking it would leave nobody able to manage the tenant's tokens: create another admin token first (the operator can also mint one)",
      );
    }
    return [
      {
        ConditionCheck: {
          TableName: this.deps.table,
          Key: keys.tokenRecord(tenantId, other.id),
          ConditionExpression: "attribute_exists(PK) AND (attribute_not_exists(expiresAt) OR expiresAt > :now)",
          ExpressionAttributeValues: { ":now": nowIso },
        },
      },
    ];
  }

  /**
   * Resolves a presented secret to its principal, or undefined when it is unknown, revoked or
   * expired. Records use at most once a minute.
   */
  async authenticate(secret: string, now: Date): Promise<Principal | undefined> {
    const hash = hashSecret(secret);
    const out = await this.deps.doc.send(new GetCommand({ TableName: this.deps.table, Key: keys.tokenLookup(hash) }));
    const item = out.Item;
    if (!item) return undefined;
    if (typeof item.expiresAt === "string" && Date.parse(item.expiresAt) <= now.getTime()) return undefined;
    const last = typeof item.lastUsedAt === "string" ? Date.parse(item.lastUsedAt) : 0;
    if (now.getTime() - last > TOUCH_INTERVAL_MS) await this.touch(item, hash, now.toISOString());
    if (item.kind === "operator") return { kind: "operator", tokenId: item.tokenId as string };
    return { kind: "tenant", tenantId: item.tenantId as string, role: item.role as Role, tokenId: item.tokenId as string };
  }

  /**
   * Creates the operator credential unless one exists; returns the secret when it was created, or
   * undefined when an operator credential was already there (it is never shown again). The marker
   * records the credential's hash, so a later replaceOperatorSecret revokes it.
   */
  async ensureOperator(now: string): Promise<string | undefined> {
    const secret = newSecret(TOKEN_PREFIX.operator);
    const hash = hashSecret(secret);
    try {
      await this.deps.doc.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: this.deps.table, Item: { ...keys.operatorMarker, createdAt: now, hash }, ConditionExpression: "attribute_not_exists(PK)" } },
            { Put: { TableName: this.deps.table, Item: operatorLookup(hash, now) } },
          ],
        }),
      );
      return secret;
    } catch (error) {
      if (transactionCancelled(error)) return undefined;
      throw error;
    }
  }

  /**
   * Makes `secret` the one operator credential (the AWS stack's Secrets Manager credential, on deploy
   * and on rotation): in one transaction its lookup is written and the lookups of the credential the
   * marker records and of every secret in `revoke` (the value being rotated away, which a stack
   * bootstrapped before the marker recorded hashes needs) are deleted, so the old credential stops
   * working the moment the new one starts. Idempotent. A concurrent replacement is re-read and
   * re-judged; a hash in `revoke` that is a tenant token's is never deleted (ConflictError).
   */
  async replaceOperatorSecret(secret: string, now: string, revoke: readonly string[] = []): Promise<void> {
    const { doc, table } = this.deps;
    const hash = hashSecret(secret);
    for (let attempt = 1; ; attempt++) {
      const marker = (await doc.send(new GetCommand({ TableName: table, Key: keys.operatorMarker, ConsistentRead: true }))).Item;
      const recorded = typeof marker?.hash === "string" ? marker.hash : undefined;
      const old = new Set([...(recorded ? [recorded] : []), ...revoke.map(hashSecret)]);
      old.delete(hash);
      // The marker as read is the precondition: two replacements cannot both think they revoke the same predecessor.
      const unchanged =
        marker === undefined ? "attribute_not_exists(PK)" : recorded === undefined ? "attribute_exists(PK) AND attribute_not_exists(#h)" : "#h = :was";
      try {
        await doc.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Put: {
                  TableName: table,
                  Item: { ...keys.operatorMarker, createdAt: (marker?.createdAt as string | undefined) ?? now, replacedAt: now, hash },
                  ConditionExpression: unchanged,
                  ...(marker === undefined ? {} : { ExpressionAttributeNames: { "#h": "hash" } }),
                  ...(recorded === undefined ? {} : { ExpressionAttributeValues: { ":was": recorded } }),
                },
              },
              { Put: { TableName: table, Item: operatorLookup(hash, now) } },
              ...[...old].map((h) => ({
                Delete: {
                  TableName: table,
                  Key: keys.tokenLookup(h),
                  ConditionExpression: "attribute_not_exists(PK) OR kind = :operator",
                  ExpressionAttributeValues: { ":operator": "operator" },
                },
              })),
            ],
          }),
        );
        return;
      } catch (error) {
        if (!transactionCancelled(error)) throw error;
        // Items from the third on are the lookups to revoke: one of them is a tenant token's.
        if (failedConditions(error).some((index) => index >= 2)) throw new ConflictError("a secret to revoke is not an operator credential", { cause: error });
        if (attempt >= 5) throw new ConflictError("the operator credential is being replaced concurrently; try again", { cause: error });
      }
    }
  }

  /** True when `secret` is the operator credential now (no expiry, no use recorded: a check, not a sign-in). */
  async isOperatorSecret(secret: string): Promise<boolean> {
    const out = await this.deps.doc.send(new GetCommand({ TableName: this.deps.table, Key: keys.tokenLookup(hashSecret(secret)), ConsistentRead: true }));
    return out.Item?.kind === "operator";
  }

  private async touch(item: Item, hash: string, now: string): Promise<void> {
    // Best effort: a failed touch must not fail the request it rides on, and a token revoked in
    // between must not be resurrected (hence the existence condition).
    const update = (key: Record<string, string>) =>
      this.deps.doc
        .send(
          new UpdateCommand({
            TableName: this.deps.table,
            Key: key,
            UpdateExpression: "SET lastUsedAt = :now",
            ConditionExpression: "attribute_exists(PK)",
            ExpressionAttributeValues: { ":now": now },
          }),
        )
        .catch(() => undefined);
    await update(keys.tokenLookup(hash));
    if (item.kind === "tenant") await update(keys.tokenRecord(item.tenantId as string, item.tokenId as string));
  }
}

/** The lookup item that makes an operator secret with this hash valid. */
const operatorLookup = (hash: string, now: string): Item => ({ ...keys.tokenLookup(hash), kind: "operator", tokenId: "operator", createdAt: now });

/** Where a token stands in the list: creation time (fixed-width ISO text), then id. */
const tokenPosition = (t: TokenInfo): string => `${t.createdAt} ${t.id}`;
const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function toInfo(item: Item): TokenInfo {
  return {
    id: item.id as string,
    name: item.name as string,
    role: item.role as Role,
    createdAt: item.createdAt as string,
    ...(item.createdBy ? { createdBy: item.createdBy as TokenCreator } : {}),
    ...(item.expiresAt ? { expiresAt: item.expiresAt as string } : {}),
    ...(item.lastUsedAt ? { lastUsedAt: item.lastUsedAt as string } : {}),
  };
}
