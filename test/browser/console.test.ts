import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalPlane, type PageWatch, artefactDir, axe, launchChromium, signIn, startLocalPlane, watch } from "../support/console-browser";
import { AMBIENT_CLUSTER, type SeededTenant, seedConsoleTenant } from "../support/console-seed";

/**
 * The console as a user meets it: Chromium against `npm start`'s control plane, a tenant seeded
 * through the API and the agent protocol (two clusters, a VirtualMesh, policies in every state, and
 * a cluster on Istio's ambient data plane), and a second tenant with 10,000 destinations.
 */
let plane: LocalPlane;
let browser: Browser;
let seeded: SeededTenant;
let big: SeededTenant;
const shots = artefactDir();

beforeAll(async () => {
  plane = await startLocalPlane();
  [browser, seeded] = await Promise.all([launchChromium(), seedConsoleTenant(plane.url, plane.operatorToken, "acme")]);
  big = await seedConsoleTenant(plane.url, plane.operatorToken, "bigco", { bulk: 10_000 });
});
afterAll(async () => {
  await browser?.close();
  await plane?.stop();
});

async function fresh(options: { dark?: boolean } = {}): Promise<{ context: BrowserContext; page: Page; seen: PageWatch }> {
  const context = await browser.newContext({ viewport: { width: 1366, height: 900 }, colorScheme: options.dark ? "dark" : "light" });
  const page = await context.newPage();
  return { context, page, seen: watch(page, plane.url) };
}

/** No serious or critical accessibility violation (axe-core, WCAG 2.1 AA). */
async function accessible(page: Page): Promise<void> {
  const violations = (await axe(page)).filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(violations, JSON.stringify(violations, null, 2)).toEqual([]);
}

/**
 * Pastes into the editor as a user's paste does (CodeMirror takes the clipboard event itself).
 * Typing through the browser's own text insertion would make Chromium copy computed styles into
 * style attributes, which the console's CSP refuses — noise that is not the console's.
 */
async function paste(page: Page, text: string): Promise<void> {
  await page.locator(".cm-content").evaluate((el, t) => {
    // Browser globals, typed here because this program is compiled without the DOM library.
    const g = globalThis as unknown as {
      DataTransfer: new () => { setData(k: string, v: string): void };
      ClipboardEvent: new (type: string, init: object) => unknown;
    };
    const data = new g.DataTransfer();
    data.setData("text/plain", t);
    (el as unknown as { dispatchEvent(e: unknown): boolean }).dispatchEvent(
      new g.ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }),
    );
  }, text);
}

const clean = (seen: PageWatch) => {
  expect(seen.violations, "Content-Security-Policy violations").toEqual([]);
  expect(seen.errors, "script errors").toEqual([]);
  expect(seen.foreignRequests, "requests to other origins").toEqual([]);
};

describe("console", () => {
  it("signs in with a tenant token kept in session storage only, never in a URL, and forgets it on sign-out", async () => {
    const { context, page, seen } = await fresh();
    await page.goto(`${plane.url}/`);
    await page.screenshot({ path: join(shots, "sign-in.png") });
    await accessible(page);
    await page.fill("#token", "mpt_not-a-real-token-at-all-0000000");
    await page.click("button[type=submit]");
    await expect.poll(() => page.textContent("#sign-in-error")).toContain("refused");

    await signIn(page, plane.url, seeded.adminToken);
    await page.waitForSelector("text=Problems, newest first");
    expect(await page.evaluate("({ ...sessionStorage })")).toEqual({ "meshplane.token": seeded.adminToken });
    expect(await page.evaluate("Object.values(localStorage).join(' ')")).not.toContain(seeded.adminToken);
    expect(await context.cookies()).toEqual([]);
    expect(seen.urls.filter((u) => u.includes(seeded.adminToken))).toEqual([]);
    expect(page.url()).not.toContain(seeded.adminToken);

    await page.click("text=Sign out");
    await page.waitForSelector("#token");
    expect(await page.evaluate("sessionStorage.length")).toBe(0);
    // Back in history shows the sign-in page, not data.
    await page.goBack().catch(() => undefined);
    await page.goto(`${plane.url}/#/policies`);
    await page.waitForSelector("#token");
    clean(seen);
    await context.close();
  });

  it("overview: clusters with agent health, policies by state, problems first", async () => {
    const { context, page, seen } = await fresh();
    await signIn(page, plane.url, seeded.adminToken);
    await page.waitForSelector("text=Policies by state");
    const problems = await page.textContent("ul.problems");
    expect(problems).toContain("fault delay percentage must be in range");
    expect(problems).toContain("ratings-v9 not found");
    // The cluster whose agent refused an object is out of sync, with one apply failure.
    const west = page.locator("tr", { has: page.locator("th >> text=cluster-west") });
    await expect.poll(() => west.textContent()).toMatch(/2 \/ 2no1none issued/);
    // East's agent issued its mesh's intermediate CA: a year left.
    await expect.poll(() => page.locator("tr", { has: page.locator("th >> text=cluster-east") }).textContent()).toMatch(/yes0\d{3} days left/);
    await page.screenshot({ path: join(shots, "overview.png"), fullPage: true });
    await accessible(page);
    clean(seen);
    await context.close();
  });

  it("topology: meshes, the VirtualMesh and what it federates where, through which gateway", async () => {
    const { context, page, seen } = await fresh();
    await signIn(page, plane.url, seeded.adminToken);
    await page.click("nav >> text=Topology");
    await page.waitForSelector("figure.graph svg");
    expect(await page.getAttribute("figure.graph svg", "aria-label")).toContain(
      "istiod-istio--system-cluster-east exports 5 destination(s) to istiod-istio--system-cluster-west",
    );
    const exported = await page.textContent("section:has(h2:text('Exported destinations'))");
    expect(exported).toContain("bookinfo/reviews");
    expect(exported).toContain(":15443");
    await page.screenshot({ path: join(shots, "topology.png"), fullPage: true });
    await accessible(page);
    clean(seen);
    await context.close();
  });

  it("finds a destination and shows its policies in acceptance order, conflicts, callers and federation", async () => {
    const { context, page, seen } = await fresh();
    await signIn(page, plane.url, seeded.adminToken);
    await page.click("nav >> text=Destinations");
    await page.fill("input[type=search]", "reviews");
    await page.waitForSelector("text=2 of");
    await page.screenshot({ path: join(shots, "destinations.png"), fullPage: true });
    await accessible(page);
    await page.click("a:text('reviews-bookinfo-cluster-east')");
    await page.waitForSelector("h2:text('Policies, in acceptance order')");
    const policies = await page.textContent("ol.policies");
    expect(policies).toMatch(/reviews-timeout\s*ACCEPTED\s*sets requestTimeout retries/);
    expect(policies).toContain("conflicts with TrafficPolicy reviews-timeout");
    expect(await page.textContent("main")).toContain("globalAccessPolicy ENABLED by VirtualMesh global");
    expect(await page.textContent("main")).toContain("from cluster-west as reviews.bookinfo.svc.cluster-east.global");
    await page.screenshot({ path: join(shots, "destination.png"), fullPage: true });
    await accessible(page);
    clean(seen);
    await context.close();
  });

  it("ambient: workloads and destinations with their data plane and waypoint, the mesh with ztunnel and its waypoints", async () => {
    const { context, page, seen } = await fresh();
    await signIn(page, plane.url, seeded.adminToken);
    await page.click("nav >> text=Workloads");
    await page.selectOption("select >> nth=0", AMBIENT_CLUSTER);
    await page.waitForSelector("text=3 of");
    const row = (name: string) => page.locator(".vscroll [role=row]", { hasText: name }).textContent();
    expect(await row("pay-shop-cluster-ambient-deployment")).toMatch(/ambient\s*shop\/pay-waypoint/);
    expect(await row("cart-shop-cluster-ambient-deployment")).toMatch(/ambient\s*none/);
    expect(await row("legacy-shop-cluster-ambient-deployment")).toMatch(/sidecar\s*none/);
    await page.screenshot({ path: join(shots, "workloads-ambient.png"), fullPage: true });
    await accessible(page);

    await page.goto(`${plane.url}/#/destinations?cluster=${AMBIENT_CLUSTER}`);
    await page.waitForSelector("text=3 of");
    expect(await row("cart-shop-cluster-ambient")).toMatch(/ambient\s*shop\/waypoint/);
    await page.click("a:text('cart-shop-cluster-ambient')");
    await page.waitForSelector("dt:text('Waypoint')");
    expect(await page.textContent("dl.facts")).toMatch(/Data plane\s*ambient\s*Waypoint\s*shop\/waypoint/);
    await accessible(page);

    await page.click("nav >> text=Topology");
    const mesh = page.locator("section:has(h2:text('Meshes')) tr", { hasText: AMBIENT_CLUSTER });
    await mesh.waitFor();
    expect(await mesh.textContent()).toMatch(/ztunnel 1\.24\.2 in istio-system\s*shop\/pay-waypoint \(for workload\), shop\/waypoint \(for service\)/);
    expect(await page.locator("section:has(h2:text('Meshes')) tr", { hasText: "cluster-east" }).textContent()).toContain("no ztunnel: sidecars only");
    await page.screenshot({ path: join(shots, "topology-ambient.png"), fullPage: true });
    await accessible(page);
    clean(seen);
    await context.close();
  });

  it("reads why a policy is INVALID, in plain words, per destination and cluster", async () => {
    const { context, page, seen } = await fresh({ dark: true });
    await signIn(page, plane.url, seeded.adminToken);
    await page.click("nav >> text=Policies");
    await page.selectOption("select >> nth=1", "INVALID");
    await page.waitForSelector("a:text('ratings-canary')");
    expect(await page.locator("tbody tr").count()).toBe(3);
    await page.screenshot({ path: join(shots, "policies-dark.png"), fullPage: true });
    await accessible(page);
    await page.click("a:text('ratings-canary')");
    await page.waitForSelector(".why");
    expect(await page.textContent(".why")).toContain("trafficShift.destinations[0]: service cluster-west/bookinfo/ratings-v9 not found");
    await page.screenshot({ path: join(shots, "policy-invalid-dark.png"), fullPage: true });
    await accessible(page);
    clean(seen);
    await context.close();
  });

  it("edit → preview → apply: the plan per cluster first, then the status turns ACCEPTED", async () => {
    const { context, page, seen } = await fresh();
    await signIn(page, plane.url, seeded.adminToken);
    await page.goto(`${plane.url}/#/policies/trafficpolicies/ratings-canary`);
    await page.click("a.button:text('Edit')");
    await page.waitForSelector(".cm-content");
    const fixed = (await page.textContent(".cm-content"))?.length ?? 0;
    expect(fixed).toBeGreaterThan(0);
    // Replace the document: shift to a real service and subset-free.
    await page.click(".cm-content");
    await page.keyboard.press("Control+A");
    await paste(
      page,
      [
        "apiVersion: meshplane.dev/v1",
        "kind: TrafficPolicy",
        "metadata:",
        "  name: ratings-canary",
        "spec:",
        "  destinationSelector:",
        "    - kubeServiceRefs:",
        "        services:",
        "          - {cluster: cluster-west, namespace: bookinfo, name: ratings}",
        "  policy:",
        "    trafficShift:",
        "      destinations:",
        "        - kubeService: {cluster: cluster-west, namespace: bookinfo, name: ratings}",
        "          weight: 100",
        "",
      ].join("\n"),
    );
    // Apply waits for a preview.
    expect(await page.isDisabled("button:text('Apply')")).toBe(true);
    await page.click("button:text('Preview')");
    await page.waitForSelector(".plan");
    const plan = await page.textContent(".plan");
    // The fix: INVALID today, ACCEPTED with it.
    expect(plan).toMatch(/TrafficPolicy\/ratings-canary:\s*INVALID\s*→\s*ACCEPTED/);
    expect(plan).toMatch(/cluster cluster-west: \d+ added, \d+ changed, \d+ removed/);
    await page.screenshot({ path: join(shots, "editor-preview.png"), fullPage: true });
    await accessible(page);
    await page.click("button:text('Apply')");
    await page.waitForURL(/#\/policies\/trafficpolicies\/ratings-canary$/);
    await page.waitForSelector(".headline .badge:text('ACCEPTED')", { timeout: 30_000 });
    await page.screenshot({ path: join(shots, "policy-accepted.png"), fullPage: true });
    clean(seen);
    await context.close();
  });

  it("preview with another output API per mesh: the mesh's routes and each state before → after, nothing stored", async () => {
    const { context, page, seen } = await fresh();
    await signIn(page, plane.url, seeded.adminToken);
    const stored = async () =>
      (await (await fetch(`${plane.url}/v1/trafficpolicies/details-faults`, { headers: { authorization: `Bearer ${seeded.adminToken}` } })).json()) as unknown;
    const before = await stored();
    await page.goto(`${plane.url}/#/edit/trafficpolicies/details-faults`);
    await page.waitForSelector(".cm-content");
    const mesh = "istiod-istio--system-cluster-west";
    await page.getByLabel(`${mesh} (cluster-west)`).selectOption("GATEWAY_API");
    await page.click("button:text('Preview')");
    await page.waitForSelector(".plan");
    const plan = (await page.textContent(".plan")) ?? "";
    expect(plan).toContain(`${mesh} (cluster-west): ISTIO → GATEWAY_API`);
    // Fault injection has no Gateway API form (the seed's agent refused it: FAILED today).
    expect(plan).toMatch(/TrafficPolicy\/details-faults:\s*FAILED\s*→\s*INVALID/);
    expect(plan).toMatch(/faultInjection: Gateway API has no fault injection/);
    expect(plan).toMatch(/− VirtualService bookinfo\/details/);
    await page.screenshot({ path: join(shots, "editor-preview-routing.png"), fullPage: true });
    await accessible(page);
    // Another choice clears the preview; nothing was stored.
    await page.getByLabel(`${mesh} (cluster-west)`).selectOption("");
    await page.waitForSelector(".plan", { state: "detached" });
    expect(await stored()).toEqual(before);
    clean(seen);
    await context.close();
  });

  it("apply is conditional: a policy changed by someone else meanwhile is not overwritten", async () => {
    const { context, page, seen } = await fresh();
    await signIn(page, plane.url, seeded.adminToken);
    await page.goto(`${plane.url}/#/edit/trafficpolicies/details-faults`);
    await page.waitForSelector(".cm-content");
    // Someone else changes it through the API.
    const res = await fetch(`${plane.url}/v1/trafficpolicies/details-faults`, { headers: { authorization: `Bearer ${seeded.adminToken}` } });
    const current = (await res.json()) as { metadata: Record<string, unknown>; spec: { policy: Record<string, unknown> } };
    const put = await fetch(`${plane.url}/v1/trafficpolicies/details-faults`, {
      method: "PUT",
      headers: { authorization: `Bearer ${seeded.adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({
        apiVersion: "meshplane.dev/v1",
        kind: "TrafficPolicy",
        metadata: { name: "details-faults" },
        spec: { ...current.spec, policy: { ...current.spec.policy, requestTimeout: "9s" } },
      }),
    });
    expect(put.status).toBe(200);
    await page.click("button:text('Preview')");
    await page.waitForSelector(".plan");
    await page.click("button:text('Apply')");
    await page.waitForSelector("text=Someone changed this policy since you opened it");
    const after = (await (
      await fetch(`${plane.url}/v1/trafficpolicies/details-faults`, { headers: { authorization: `Bearer ${seeded.adminToken}` } })
    ).json()) as { spec: { policy: { requestTimeout?: string } } };
    expect(after.spec.policy.requestTimeout).toBe("9s");
    clean(seen);
    await context.close();
  });

  it("the editor underlines what the schema refuses and completes keys from it", async () => {
    const { context, page, seen } = await fresh();
    await signIn(page, plane.url, seeded.adminToken);
    await page.goto(`${plane.url}/#/edit/trafficpolicies`);
    await page.waitForSelector(".cm-content");
    await page.click(".cm-content");
    await page.keyboard.press("Control+End");
    await paste(page, "    loadBalancer:\n      simple: FASTEST\n");
    await page.waitForSelector(".cm-lintRange-error");
    await page.hover(".cm-lintRange-error");
    await page.waitForSelector(".cm-tooltip-lint");
    expect(await page.textContent(".cm-tooltip-lint")).toContain("must be one of");
    await paste(page, "    ret");
    await page.keyboard.press("Control+Space");
    await page.waitForSelector(".cm-tooltip-autocomplete");
    expect(await page.textContent(".cm-tooltip-autocomplete")).toContain("retries");
    await page.screenshot({ path: join(shots, "editor-completion.png"), fullPage: true });
    // No keyboard trap: Tab indents inside the editor, Esc then Tab moves on to the next control: the
    // output API to preview with (the tenant has Istio meshes), then the buttons.
    await page.keyboard.press("Escape");
    await page.keyboard.press("Escape");
    await page.keyboard.press("Tab");
    expect(await page.evaluate("document.activeElement === document.querySelector('fieldset.routing select')")).toBe(true);
    clean(seen);
    await context.close();
  });

  it("10,000 destinations: the list is virtualised, searchable and filterable", async () => {
    const { context, page, seen } = await fresh();
    await signIn(page, plane.url, big.adminToken);
    await page.click("nav >> text=Destinations");
    await page.waitForSelector("text=10,014 of 10,014 destinations", { timeout: 60_000 });
    // Only the rows in view are in the DOM.
    expect(await page.locator(".vscroll [role=row]").count()).toBeLessThan(80);
    await page.fill("input[type=search]", "svc--09999");
    await page.waitForSelector("text=1 of 10,014 destinations");
    await page.fill("input[type=search]", "");
    await page.selectOption("select >> nth=0", "bulk-03");
    await page.waitForSelector("text=1,000 of 10,014 destinations");
    // The scroller is reachable from the keyboard.
    await page.focus(".vscroll");
    await page.keyboard.press("End");
    await page.waitForSelector("a:text('svc--02999-apps-bulk-03')");
    await page.screenshot({ path: join(shots, "destinations-10k.png") });
    await accessible(page);
    clean(seen);
    await context.close();
  });

  it("operator view: tenants, with the operator credential", async () => {
    const { context, page, seen } = await fresh();
    await signIn(page, plane.url, plane.operatorToken);
    await page.waitForSelector("h1:text('Tenants')");
    // The heading shows before the list has loaded: wait for its rows.
    await page.waitForSelector("tbody th:text('acme')");
    const text = await page.textContent("main");
    expect(text).toContain("acme");
    expect(text).toContain("bigco");
    await page.screenshot({ path: join(shots, "tenants.png"), fullPage: true });
    await accessible(page);
    clean(seen);
    await context.close();
  });
});
