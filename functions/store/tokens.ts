import { GetCommand, TransactWriteCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { TransactionCanceledException } from "@aws-sdk/client-dynamodb";
import { ConflictError, NotFoundError } from "../shared/errors";
import { TOKEN_PREFIX, hashSecret, newId, newSecret } from "../shared/secrets";
import { queryItems } from "./batch";
import { keys, tenantPk } from "./keys";
import type { Page, PageRequest } from "./page";
import type { StoreDeps } from "./resources";
import { TTL_ATTRIBUTE } from "./table";

export const ROLES = ["admin", "editor", "viewer"] as const;
export type Role = (typeof ROLES)[number];

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
export type Principal =
  | { kind: "operator"; tokenId: string }
  | { kind: "tenant"; tenantId: string; role: Role; tokenId: string };

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
  const info: TokenInfo = { id: newId(), name: input.name, role: input.role, createdAt: now, createdBy: input.createdBy, ...(input.expiresAt ? { expiresAt: input.expiresAt } : {}) };
  const ttl = input.expiresAt ? { [TTL_ATTRIBUTE]: Math.floor(Date.parse(input.expiresAt) / 1000) + 86_400 } : {};
  return {
    token,
    info,
    puts: [
      { Put: { TableName: table, Item: { ...keys.tokenRecord(tenantId, info.id), ...info, hash, ...ttl }, ConditionExpression: "attribute_not_exists(PK)" } },
      { Put: { TableName: table, Item: { ...keys.tokenLookup(hash), kind: "tenant", tenantId, tokenId: info.id, role: info.role, ...(info.expiresAt ? { expiresAt: info.expiresAt } : {}), ...ttl }, ConditionExpression: "attribute_not_exists(PK)" } },
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
            { ConditionCheck: { TableName: this.deps.table, Key: keys.tenant(tenantId), ConditionExpression: "#s = :active", ExpressionAttributeNames: { "#s": "state" }, ExpressionAttributeValues: { ":active": "active" } } },
            ...puts,
          ],
        }),
      );
    } catch (error) {
      if (error instanceof TransactionCanceledException) throw new NotFoundError(`tenant ${tenantId} not found`, { cause: error });
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
        if (!(error instanceof TransactionCanceledException)) throw error;
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
   * undefined when an operator credential was already there (it is never shown again).
   */
  async ensureOperator(now: string): Promise<string | undefined> {
    const secret = newSecret(TOKEN_PREFIX.operator);
    try {
      await this.deps.doc.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: this.deps.table, Item: { ...keys.operatorMarker, createdAt: now }, ConditionExpression: "attribute_not_exists(PK)" } },
            { Put: { TableName: this.deps.table, Item: { ...keys.tokenLookup(hashSecret(secret)), kind: "operator", tokenId: "operator", createdAt: now } } },
          ],
        }),
      );
      return secret;
    } catch (error) {
      if (error instanceof TransactionCanceledException) return undefined;
      throw error;
    }
  }

  /**
   * Makes a given operator secret valid (the AWS stack's Secrets Manager credential). Idempotent; an
   * earlier operator credential keeps working until its lookup item is deleted.
   */
  async putOperatorSecret(secret: string, now: string): Promise<void> {
    await this.deps.doc.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: this.deps.table, Item: { ...keys.operatorMarker, createdAt: now } } },
          { Put: { TableName: this.deps.table, Item: { ...keys.tokenLookup(hashSecret(secret)), kind: "operator", tokenId: "operator", createdAt: now } } },
        ],
      }),
    );
  }

  private async touch(item: Item, hash: string, now: string): Promise<void> {
    // Best effort: a failed touch must not fail the request it rides on, and a token revoked in
    // between must not be resurrected (hence the existence condition).
    const update = (key: Record<string, string>) =>
      this.deps.doc
        .send(new UpdateCommand({ TableName: this.deps.table, Key: key, UpdateExpression: "SET lastUsedAt = :now", ConditionExpression: "attribute_exists(PK)", ExpressionAttributeValues: { ":now": now } }))
        .catch(() => undefined);
    await update(keys.tokenLookup(hash));
    if (item.kind === "tenant") await update(keys.tokenRecord(item.tenantId as string, item.tokenId as string));
  }
}

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
