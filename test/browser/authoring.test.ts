import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ControlPlaneClient } from "../../packages/agent/src/control-plane/client";
import { agentKey, discoveryOf } from "../support/agents";
import { type LocalPlane, type PageWatch, artefactDir, axe, launchChromium, signIn, startLocalPlane, watch } from "../support/console-browser";

/**
 * Resources authored in a cluster, in the console (docs/console.md#authored-resources): Chromium
 * against `npm start`'s control plane, where cluster east's agent submits a TrafficPolicy through the
 * agent protocol (`POST /v1/agent/resources`) as it does for a custom resource, beside one created
 * through the API. The list marks only the authored one; its page shows its source; its YAML opens
 * read-only; an editor is not offered to delete it (and the API refuses); an admin is, after a warning.
 */
const TENANT = "default";
const CLUSTER = "east";
const AUTHORED = "reviews-retries.bookinfo.east";
const VIA_API = "reviews-timeout";
const SOURCE = { namespace: "bookinfo", name: "reviews-retries", uid: "6f1c2a9e-0b7d-4f5e-9a31-2c8d4e7b1f00", generation: 3 };
const SPEC = { destinationSelector: [{ kubeServiceRefs: { services: [{ name: "reviews", namespace: "bookinfo", cluster: CLUSTER }] } }] };

let plane: LocalPlane;
let browser: Browser;
let editorToken: string;
const shots = artefactDir();

async function call(token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const res = await fetch(plane.url + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

async function ok(token: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const answer = await call(token, method, path, body);
  if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
}

/** Cluster east with an agent registered as the chart's does, reporting bookinfo, and submitting one custom resource. */
async function seed(): Promise<void> {
  const admin = plane.adminToken;
  const { bootstrapToken } = (await ok(admin, "POST", "/v1/clusters", { name: CLUSTER })) as { bootstrapToken: string };
  const key = await agentKey();
  await ControlPlaneClient.register(plane.url, bootstrapToken, key.publicJwk, "authoring-browser-test");
  const agent = new ControlPlaneClient({ url: plane.url, tenant: TENANT, cluster: CLUSTER, key, now: () => new Date() });
  await agent.discovery(discoveryOf("istio-bookinfo", CLUSTER) as never);
  const document = {
    apiVersion: "meshplane.dev/v1",
    kind: "TrafficPolicy",
    metadata: { name: SOURCE.name },
    spec: { ...SPEC, policy: { retries: { attempts: 2 } } },
  };
  const res = await fetch(`${plane.url}/v1/agent/resources`, {
    method: "POST",
    headers: { authorization: `Bearer ${await agent.token("POST")}`, "content-type": "application/json" },
    body: JSON.stringify({ items: [{ source: SOURCE, document }] }),
  });
  expect(await res.json()).toEqual({ results: [{ outcome: "stored", name: AUTHORED, generation: 1, action: "created" }] });
  await ok(admin, "POST", "/v1/trafficpolicies", {
    apiVersion: "meshplane.dev/v1",
    kind: "TrafficPolicy",
    metadata: { name: VIA_API },
    spec: { ...SPEC, policy: { requestTimeout: "3s" } },
  });
  editorToken = ((await ok(admin, "POST", "/v1/tokens", { name: "editor", role: "editor" })) as { token: string }).token;
}

beforeAll(async () => {
  plane = await startLocalPlane();
  [browser] = await Promise.all([launchChromium(), seed()]);
});
afterAll(async () => {
  await browser?.close();
  await plane?.stop();
});

async function fresh(token: string): Promise<{ context: BrowserContext; page: Page; seen: PageWatch }> {
  const context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
  const page = await context.newPage();
  const seen = watch(page, plane.url);
  await signIn(page, plane.url, token);
  return { context, page, seen };
}

/** No serious or critical accessibility violation, no CSP violation, script error or other origin. */
async function clean(page: Page, seen: PageWatch): Promise<void> {
  const violations = (await axe(page)).filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(violations, JSON.stringify(violations, null, 2)).toEqual([]);
  expect(seen.violations, "Content-Security-Policy violations").toEqual([]);
  expect(seen.errors, "script errors").toEqual([]);
  expect(seen.foreignRequests, "requests to other origins").toEqual([]);
}

const row = (page: Page, name: string) => page.locator("tr", { has: page.locator(`th >> text="${name}"`) });

describe("resources authored in a cluster, in the console", () => {
  it("the list marks only the authored one, with its cluster and custom resource, and filters by source", async () => {
    const { context, page, seen } = await fresh(plane.adminToken);
    await page.click("nav >> text=Policies");
    await page.waitForSelector(`text=${AUTHORED}`);
    expect(await row(page, AUTHORED).locator(".badge.source").textContent()).toBe("from cluster east · bookinfo/reviews-retries");
    expect(await row(page, VIA_API).locator(".badge.source").count()).toBe(0);
    expect(await row(page, VIA_API).textContent()).toContain("API");

    await page.selectOption("select >> nth=2", "cluster:east");
    await expect.poll(() => page.locator("tbody tr").count()).toBe(1);
    expect(page.url()).toContain("source=cluster%3Aeast");
    await page.selectOption("select >> nth=2", "api");
    await expect.poll(() => page.locator("tbody th").allTextContents()).toEqual([VIA_API]);
    await clean(page, seen);
    await context.close();
  });

  it("its page, reached by its dotted name, shows the source and where to change it; an admin may delete it after a warning", async () => {
    const { context, page, seen } = await fresh(plane.adminToken);
    await page.goto(`${plane.url}/#/policies`);
    await page.click(`a >> text="${AUTHORED}"`);
    await page.waitForSelector("#h-source");
    expect(page.url()).toContain(`#/policies/trafficpolicies/${AUTHORED}`);
    const facts = await page.locator("section[aria-labelledby=h-source] dl").textContent();
    for (const fact of ["Clustereast", "Namespacebookinfo", "Namereviews-retries", `UID${SOURCE.uid}`, "Generation3 in the cluster; stored as generation 1"])
      expect(facts).toContain(fact);
    expect(await page.textContent("[role=note].authored")).toContain("Authored in cluster east: change it in Git, or with kubectl in that cluster");
    expect(await page.locator("a.button", { hasText: "View YAML" }).count()).toBe(1);
    expect(await page.locator("a.button", { hasText: /^Edit$/ }).count()).toBe(0);

    await page.click("button >> text=Delete…");
    expect(await page.textContent(".warning")).toContain(
      "The agent of cluster east submits it again while the custom resource TrafficPolicy bookinfo/reviews-retries exists",
    );
    await page.screenshot({ path: join(shots, "authored.png"), fullPage: true });
    await clean(page, seen);
    await page.click("button >> text=Cancel");
    expect(await page.locator(".warning").count()).toBe(0);
    await context.close();
  });

  it("its YAML opens read-only: no Preview or Apply, the note in their place, and typing changes nothing", async () => {
    const { context, page, seen } = await fresh(plane.adminToken);
    await page.goto(`${plane.url}/#/policies/trafficpolicies/${AUTHORED}`);
    await page.click("text=View YAML");
    await page.waitForSelector(".cm-content");
    expect(await page.textContent("h1")).toBe(`View TrafficPolicy ${AUTHORED}`);
    expect(await page.getAttribute(".cm-content", "aria-readonly")).toBe("true");
    expect(await page.locator("button", { hasText: /^(Preview|Apply)$/ }).count()).toBe(0);
    expect(await page.textContent("[role=note].authored")).toContain("It is read-only here.");
    const before = await page.locator(".cm-content").textContent();
    expect(before).toContain("attempts: 2");
    await page.click(".cm-content");
    await page.keyboard.press("End");
    await page.keyboard.type("x");
    await page.keyboard.press("Enter");
    expect(await page.locator(".cm-content").textContent()).toBe(before);
    await clean(page, seen);
    await context.close();
  });

  it("an editor is not offered to delete it, and the API refuses the editor", async () => {
    const { context, page, seen } = await fresh(editorToken);
    const probe = page.waitForResponse((r) => r.url().includes("/v1/tokens?limit=1"));
    await page.goto(`${plane.url}/#/policies/trafficpolicies/${AUTHORED}`);
    await page.waitForSelector("#h-source");
    expect((await probe).status()).toBe(403);
    expect(await page.locator("button", { hasText: "Delete…" }).count()).toBe(0);
    expect((await call(editorToken, "DELETE", `/v1/trafficpolicies/${AUTHORED}`)).status).toBe(403);
    expect(
      (
        await call(editorToken, "PUT", `/v1/trafficpolicies/${AUTHORED}`, {
          apiVersion: "meshplane.dev/v1",
          kind: "TrafficPolicy",
          metadata: { name: AUTHORED },
          spec: SPEC,
        })
      ).status,
    ).toBe(409);
    await clean(page, seen);
    await context.close();
  });

  it("the API's own resource keeps its editor: Edit, Preview and Apply, no source", async () => {
    const { context, page, seen } = await fresh(editorToken);
    await page.goto(`${plane.url}/#/policies/trafficpolicies/${VIA_API}`);
    await page.waitForSelector("text=Generated objects");
    expect(await page.locator("#h-source").count()).toBe(0);
    await page.click("a.button >> text=Edit");
    await page.waitForSelector(".cm-content");
    expect(await page.getAttribute(".cm-content", "aria-readonly")).toBeNull();
    await page.click("button >> text=Preview");
    await page.waitForSelector("button.primary:not([disabled])");
    await page.click("button.primary >> text=Apply");
    await page.waitForURL(`**/#/policies/trafficpolicies/${VIA_API}`);
    await clean(page, seen);
    await context.close();
  });

  it("an admin deletes it after the warning: it is gone from the list", async () => {
    const { context, page, seen } = await fresh(plane.adminToken);
    await page.goto(`${plane.url}/#/policies/trafficpolicies/${AUTHORED}`);
    await page.click("button >> text=Delete…");
    await page.click(`button >> text=Delete ${AUTHORED} from meshplane`);
    await page.waitForURL("**/#/policies");
    await page.waitForSelector(`text=${VIA_API}`);
    expect(await page.locator(`text=${AUTHORED}`).count()).toBe(0);
    expect((await call(plane.adminToken, "GET", `/v1/trafficpolicies/${AUTHORED}`)).status).toBe(404);
    expect(seen.errors).toEqual([]);
    await context.close();
  });
});
