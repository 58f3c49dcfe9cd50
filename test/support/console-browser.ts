/**
 * The console under a real browser: the local control plane as `npm start` runs it (its own process,
 * DynamoDB Local and the SQS emulator in memory), Debian's Chromium driven by playwright-core, and
 * axe-core for accessibility. Used by test/browser and `npm run bench -- console`.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { type Browser, type Page, chromium } from "playwright-core";
import { freePort } from "../../functions/local/dynamo-local";
import { buildConsole } from "../../scripts/build-console";
import { adminTokenOf, launch, operatorTokenOf, waitFor } from "./launcher";

const ROOT = resolve(import.meta.dirname, "../..");

/** Debian's Chromium (scripts/ensure-deps.sh installs it); MESHPLANE_CHROMIUM names another. */
export function chromiumPath(): string {
  const candidates = [process.env.MESHPLANE_CHROMIUM, "/usr/bin/chromium", "/usr/bin/chromium-browser"].filter((p): p is string => !!p);
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new Error(`no Chromium at ${candidates.join(", ")}: run bash scripts/ensure-deps.sh --java (it installs Debian's chromium)`);
  return found;
}

export interface LocalPlane {
  url: string;
  operatorToken: string;
  /** The default tenant's admin token, printed on first start. */
  adminToken: string;
  output(): string;
  stop(): Promise<void>;
}

/** `npm start -- --in-memory` on a free port, with the console built first. */
export async function startLocalPlane(): Promise<LocalPlane> {
  await buildConsole({ ifStale: true, quiet: true });
  const port = await freePort();
  const run = launch(["--in-memory", "--port", String(port)], { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true" });
  await waitFor(run, "try: curl", 90_000);
  return {
    url: `http://127.0.0.1:${port}`,
    operatorToken: operatorTokenOf(run.output()),
    adminToken: adminTokenOf(run.output()),
    output: run.output,
    async stop() {
      run.child.kill("SIGTERM");
      await run.exit;
    },
  };
}

export async function launchChromium(): Promise<Browser> {
  // --no-sandbox: CI runs as root, where Chromium's sandbox cannot start.
  return chromium.launch({ executablePath: chromiumPath(), args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] });
}

/** What a page did that the console promises never to do: CSP violations, script errors, other origins. */
export interface PageWatch {
  violations: string[];
  errors: string[];
  foreignRequests: string[];
  /** Every URL the page requested (to check no token ever appears in one). */
  urls: string[];
}

export function watch(page: Page, origin: string): PageWatch {
  const w: PageWatch = { violations: [], errors: [], foreignRequests: [], urls: [] };
  page.on("console", (m) => {
    if (/Content Security Policy/i.test(m.text())) w.violations.push(m.text());
  });
  page.on("pageerror", (e) => w.errors.push(e.message));
  page.on("request", (r) => {
    w.urls.push(r.url());
    if (!r.url().startsWith(origin) && !r.url().startsWith("data:")) w.foreignRequests.push(r.url());
  });
  return w;
}

export async function signIn(page: Page, url: string, token: string): Promise<void> {
  await page.goto(`${url}/`);
  await page.fill("#token", token);
  await page.click("button[type=submit]");
  await page.waitForSelector("header.top");
}

const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: number;
}

/**
 * axe-core's WCAG 2.1 A/AA rules on the page as it is. The script goes in through the DevTools
 * protocol (the console's CSP rightly refuses an injected inline script).
 */
export async function axe(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(`${AXE}\n;0`);
  // A string, so the browser-side code needs no DOM types in this Node program.
  const result = (await page.evaluate(`(async () => {
    const r = await axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] } });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length }));
  })()`)) as AxeViolation[];
  return result;
}

/** Where screenshots go: kept as CI artefacts, never committed. */
export function artefactDir(): string {
  const dir = resolve(ROOT, process.env.MESHPLANE_ARTIFACTS ?? "artifacts", "console");
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** The page's JavaScript heap in use, MiB to one decimal (Chromium's DevTools protocol). */
export async function jsHeapMiB(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Performance.enable");
  const { metrics } = await cdp.send("Performance.getMetrics");
  return Math.round(((metrics.find((m) => m.name === "JSHeapUsedSize")?.value ?? 0) / 1024 / 1024) * 10) / 10;
}

/**
 * A console bench's frame: `npm start`'s control plane and Chromium for `run`, whose figures are
 * printed as one JSON line (the bench's answer); both are stopped after, and a failure exits 1.
 */
export function consoleBench(run: (plane: LocalPlane, browser: Browser) => Promise<Record<string, unknown>>): void {
  const main = async () => {
    const plane = await startLocalPlane();
    const browser = await launchChromium();
    try {
      console.log(JSON.stringify(await run(plane, browser)));
    } finally {
      await browser.close();
      await plane.stop();
    }
  };
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
