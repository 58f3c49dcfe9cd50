/**
 * A large list, page by page: POLICIES small TrafficPolicies (10,000 by default, past what one answer
 * could hold before pagination) listed through the local HTTP API with `?limit=LIMIT` (1,000), then with a
 * labelSelector that matches a third of them. Checks that every policy comes exactly once and in
 * order; measures time and bytes per page and DynamoDB queries per page.
 */
import { followPages, namesOf, seedPolicies } from "../support/list-pages";
import { benchPlane, percentile } from "./_harness";

const POLICIES = Number(process.env.POLICIES ?? 10_000);
const LIMIT = Number(process.env.LIMIT ?? 1000);

const plane = await benchPlane();
try {
  const admin = await plane.tenant("bench");
  const seeded = performance.now();
  const names = await seedPolicies(plane.store, "bench", "p", POLICIES, (i) => ({ team: `t${i % 3}` }));
  const seedMs = performance.now() - seeded;

  const list = async (path: string, expected: string[]) => {
    plane.ops.reset();
    const started = performance.now();
    const { bodies, bytes, ms } = await followPages((p) => plane.request("GET", p, admin), path);
    const totalMs = performance.now() - started;
    const got = namesOf(bodies);
    if (got.length !== expected.length || got.some((n, i) => n !== expected[i]))
      throw new Error(`${path}: ${got.length} items, not the ${expected.length} expected in order`);
    const sorted = [...ms].sort((a, b) => a - b);
    return {
      pages: bodies.length,
      total_ms: Math.round(totalMs),
      page_ms_p50: Math.round(percentile(sorted, 50)),
      page_ms_max: Math.round(sorted.at(-1) ?? 0),
      largest_page_bytes: Math.max(...bytes),
      total_bytes: bytes.reduce((a, b) => a + b, 0),
      dynamodb_queries_per_page: Number((plane.ops.get("Query") / bodies.length).toFixed(2)),
    };
  };
  const all = await list(`/v1/trafficpolicies?limit=${LIMIT}`, names);
  const selected = await list(
    `/v1/trafficpolicies?limit=${LIMIT}&labelSelector=team%3Dt1`,
    names.filter((_, i) => i % 3 === 1),
  );
  console.log(`${POLICIES} policies seeded in ${(seedMs / 1000).toFixed(1)} s; listed in ${all.pages} pages, ${all.total_ms} ms`);
  console.log(JSON.stringify({ bench: "list-pages", policies: POLICIES, limit: LIMIT, seed_ms: Math.round(seedMs), all, selected }));
} finally {
  await plane.stop();
}
