/** `token create|list|revoke` (tenant admin) and `tenant create|list|delete` (operator). */
import type { Command } from "commander";
import { listAll } from "../client";
import { UsageError } from "../config";
import { type Item, text } from "../kinds";
import { colours, formatData, table } from "../output";
import { clientFor, optionsOf, streamsOf } from "../runtime";

function printList(items: Item[], output: string, columns: [string, (i: Item) => unknown][]): void {
  const streams = streamsOf();
  if (output === "json" || output === "yaml") streams.out.write(formatData({ items }, output));
  else if (output === "name") streams.out.write(items.map((i) => `${text(columns[0]?.[1](i))}\n`).join(""));
  else if (items.length === 0) streams.err.write("none found\n");
  else
    streams.out.write(
      table(
        streams,
        columns.map(([title]) => title),
        items.map((i) => columns.map(([, v]) => text(v(i)))),
      ),
    );
}

/** A secret shown once: on its own line, so it can be copied; a warning on stderr that it will not be shown again. */
function printSecret(label: string, secret: string, what: string): void {
  const streams = streamsOf();
  const c = colours(streams.err, streams.env);
  streams.out.write(`${what}\n${label}: ${secret}\n`);
  streams.err.write(c.yellow("The secret is shown once and stored only as a hash: keep it now.\n"));
}

export async function createToken(name: string, _o: unknown, command: Command): Promise<number> {
  const o = optionsOf<{ role: string; ttlDays?: string; output: string }>(command);
  let ttlDays: number | undefined;
  if (o.ttlDays !== undefined) {
    ttlDays = Number(o.ttlDays);
    if (!Number.isInteger(ttlDays) || ttlDays < 1 || ttlDays > 3650)
      throw new UsageError(`--ttl-days must be a whole number from 1 to 3650, not "${o.ttlDays}"`);
  }
  const { body } = await clientFor(command).request<Item & { token: string }>("POST", "/v1/tokens", {
    body: { name, role: o.role, ...(ttlDays !== undefined ? { ttlDays } : {}) },
  });
  if (o.output === "json") streamsOf().out.write(formatData(body, "json"));
  else printSecret("token", body.token, `token ${name} (${o.role}) created, id ${text(body.id)}${body.expiresAt ? `, expires ${text(body.expiresAt)}` : ""}`);
  return 0;
}

/** Who minted a token, as listed: the operator, or the tenant's admin token by id (nothing for tokens older than the record). */
function createdBy(value: unknown): string | undefined {
  const by = value as { kind?: string; tokenId?: string } | undefined;
  if (by?.kind === "operator") return "operator";
  return by?.kind === "tenant" ? `token ${text(by.tokenId)}` : undefined;
}

export async function listTokens(_o: unknown, command: Command): Promise<number> {
  const o = optionsOf<{ output: string }>(command);
  const items = await listAll(clientFor(command), "/v1/tokens");
  printList(items, o.output, [
    ["ID", (i) => i.id],
    ["NAME", (i) => i.name],
    ["ROLE", (i) => i.role],
    ["CREATED BY", (i) => createdBy(i.createdBy)],
    ["EXPIRES", (i) => i.expiresAt],
    ["LAST USED", (i) => i.lastUsedAt],
  ]);
  return 0;
}

export async function revokeToken(id: string, _o: unknown, command: Command): Promise<number> {
  await clientFor(command).request("DELETE", `/v1/tokens/${encodeURIComponent(id)}`);
  streamsOf().out.write(`token ${id} revoked\n`);
  return 0;
}

export async function createTenant(name: string, _o: unknown, command: Command): Promise<number> {
  const o = optionsOf<{ output: string }>(command);
  const { body } = await clientFor(command).request<Item & { adminToken: string }>("POST", "/v1/tenants", { body: { name } });
  if (o.output === "json") streamsOf().out.write(formatData(body, "json"));
  else {
    printSecret("admin token", body.adminToken, `tenant ${name} created`);
    const c = colours(streamsOf().err, process.env);
    streamsOf().err.write(c.dim(`Log in as its admin: meshplane login --url <url> --name ${name}\n`));
  }
  return 0;
}

export async function listTenants(_o: unknown, command: Command): Promise<number> {
  const o = optionsOf<{ output: string }>(command);
  const items = await listAll(clientFor(command), "/v1/tenants");
  printList(items, o.output, [
    ["ID", (i) => i.id],
    ["REVISION", (i) => i.revision],
    ["TRANSLATED", (i) => i.translatedRevision],
    ["CREATED", (i) => i.createdAt],
  ]);
  return 0;
}

export async function deleteTenant(id: string, _o: unknown, command: Command): Promise<number> {
  await clientFor(command).request("DELETE", `/v1/tenants/${encodeURIComponent(id)}`);
  streamsOf().out.write(`tenant ${id} deleted\n`);
  return 0;
}
