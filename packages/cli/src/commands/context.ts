/** `login` and `context list|use|delete`. */
import type { Command } from "commander";
import { ApiError, createClient } from "../client";
import { UsageError, configPath, readConfig, writeConfig } from "../config";
import { colours, formatData, table } from "../output";
import { readStdin, streamsOf } from "../runtime";
import { VERSION } from "../version";

async function promptToken(): Promise<string> {
  const { default: password } = await import("@inquirer/password");
  return password({ message: "Token (input hidden):", mask: false });
}

/** Who a credential is: a tenant's token (can read clusters) or the operator's (can list tenants). */
async function whoIs(url: string, token: string): Promise<string> {
  const client = createClient(url, token, { userAgent: `meshplane-cli/${VERSION}` });
  try {
    await client.request("GET", "/v1/clusters?limit=1");
    return "a tenant token";
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 403) throw error;
  }
  await client.request("GET", "/v1/tenants?limit=1");
  return "the operator credential";
}

export async function login(options: { url: string; name?: string; tokenStdin?: boolean }): Promise<number> {
  const streams = streamsOf();
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    throw new UsageError(`--url must be a URL such as https://meshplane.example.com, not "${options.url}"`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new UsageError("--url must be http(s)");
  if (url.protocol === "http:" && !["127.0.0.1", "localhost", "[::1]"].includes(url.hostname)) {
    streams.err.write(`${colours(streams.err, streams.env).yellow("warning:")} ${url.origin} is plain http: the token travels unencrypted\n`);
  }
  const fromStdin = options.tokenStdin === true || process.stdin.isTTY !== true;
  const token = (fromStdin ? readStdin() : await promptToken()).trim();
  if (token.length === 0) throw new UsageError(fromStdin ? "no token on standard input" : "no token given");
  const who = await whoIs(url.origin, token);
  const path = configPath(process.env);
  const config = readConfig(path);
  const name = options.name ?? url.host;
  config.contexts[name] = { url: url.origin, token };
  config.current = name;
  writeConfig(path, config);
  streams.out.write(`logged in to ${url.origin} with ${who}; context "${name}" is now current (${path})\n`);
  return 0;
}

export async function list(options: { output: string }): Promise<number> {
  const streams = streamsOf();
  const config = readConfig(configPath(process.env));
  const rows = Object.entries(config.contexts).map(([name, c]) => ({ name, url: c.url, current: name === config.current }));
  if (options.output === "json" || options.output === "yaml") streams.out.write(formatData(rows, options.output));
  else if (options.output === "name") streams.out.write(rows.map((r) => `${r.name}\n`).join(""));
  else
    streams.out.write(
      table(
        streams,
        ["CURRENT", "NAME", "URL"],
        rows.map((r) => [r.current ? "*" : "", r.name, r.url]),
      ),
    );
  return 0;
}

export async function use(name: string, _o: unknown, _c: Command): Promise<number> {
  const path = configPath(process.env);
  const config = readConfig(path);
  if (config.contexts[name] === undefined) throw new UsageError(`no context "${name}"; \`meshplane context list\` shows the ones there are`);
  config.current = name;
  writeConfig(path, config);
  streamsOf().out.write(`context "${name}" is now current\n`);
  return 0;
}

export async function remove(name: string): Promise<number> {
  const path = configPath(process.env);
  const config = readConfig(path);
  if (config.contexts[name] === undefined) throw new UsageError(`no context "${name}"`);
  delete config.contexts[name];
  if (config.current === name) delete config.current;
  writeConfig(path, config);
  streamsOf().out.write(`context "${name}" deleted\n`);
  return 0;
}
