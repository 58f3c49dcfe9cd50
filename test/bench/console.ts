/**
 * The console at 10,000 destinations: `npm start`'s control plane with a tenant of 10,014
 * destinations (ten clusters of 1,000 and two bookinfo clusters; DESTINATIONS sets the 10,000),
 * Debian's Chromium opening the destinations page cold (a new browser context each run, so no
 * cache) RUNS times. Figures: the
 * console's size (what the first render loads, gzipped too), time to the first rows, time until all
 * 10,014 are listed, the DOM rows present, and the page's JS heap.
 */
import { percentile } from "./_harness";
import { buildConsole } from "../../scripts/build-console";
import { consoleBench, jsHeapMiB, signIn } from "../support/console-browser";
import { seedConsoleTenant } from "../support/console-seed";

const RUNS = Number(process.env.RUNS ?? 5);
const med = (xs: number[]) =>
  Math.round(
    percentile(
      [...xs].sort((a, b) => a - b),
      50,
    ),
  );
const DESTINATIONS = Number(process.env.DESTINATIONS ?? 10_000);

consoleBench(async (plane, browser) => {
  const size = (await buildConsole({ quiet: true })) as NonNullable<Awaited<ReturnType<typeof buildConsole>>>;
  const { adminToken } = await seedConsoleTenant(plane.url, plane.operatorToken, "bench", { bulk: DESTINATIONS });
  const firstRows: number[] = [];
  const allRows: number[] = [];
  const overview: number[] = [];
  let domRows = 0;
  let heapMiB = 0;
  for (let i = 0; i < RUNS + 1; i++) {
    const context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
    const page = await context.newPage();
    await signIn(page, plane.url, adminToken);
    // A cold load of the destinations page: the token is in session storage, the cache is empty.
    await context.clearCookies();
    const t0 = performance.now();
    await page.goto(`${plane.url}/#/destinations`);
    await page.waitForSelector(".vscroll [role=row]");
    const first = performance.now() - t0;
    await page.waitForSelector(`text=${(DESTINATIONS + 14).toLocaleString("en")} of ${(DESTINATIONS + 14).toLocaleString("en")} destinations`, {
      timeout: 120_000,
    });
    const all = performance.now() - t0;
    const t1 = performance.now();
    await page.goto(`${plane.url}/#/`);
    await page.reload();
    await page.waitForSelector("text=Policies by state");
    const o = performance.now() - t1;
    if (i > 0) {
      // The first run warms the control plane's caches and the OS file cache; it is not counted.
      firstRows.push(first);
      allRows.push(all);
      overview.push(o);
    }
    await page.goto(`${plane.url}/#/destinations`);
    await page.waitForSelector(`text=${(DESTINATIONS + 14).toLocaleString("en")} of`);
    domRows = await page.locator(".vscroll [role=row]").count();
    heapMiB = await jsHeapMiB(page);
    await context.close();
    console.log(`run ${i}: first rows ${first.toFixed(0)} ms, all ${DESTINATIONS + 14} listed ${all.toFixed(0)} ms, overview ${o.toFixed(0)} ms`);
  }
  return {
    bench: "console",
    runs: RUNS,
    destinations: DESTINATIONS + 14,
    initial_kib: Math.round(size.initialBytes / 1024),
    initial_gzip_kib: Math.round(size.initialGzipBytes / 1024),
    total_kib: Math.round(size.totalBytes / 1024),
    first_rows_ms: med(firstRows),
    all_listed_ms: med(allRows),
    overview_ms: med(overview),
    dom_rows: domRows,
    js_heap_mib: heapMiB,
  };
});
