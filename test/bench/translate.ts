/**
 * Translation benchmark: `node_modules/.bin/tsx test/bench/translate.ts [clusters] [servicesPerCluster]`.
 * Prints human-readable lines, then as its last line one JSON object
 * {"bench":"translate","full_ms","floor_ms","full_over_floor","peak_rss_mb","peak_rss_with_discovery_mb","objects","objects_per_s","one_policy_change_ms","first_change_ms","change_over_full","discovery_change_ms"}.
 * `floor_ms` is the time to merely serialise the output once and hash it (the snapshot content hash):
 * no translation can produce its output faster than that, so `full_ms / floor_ms` says how close it is.
 * Targets (ARCHITECTURE.md): full translation of the 100 × 100 tenant under 2 s and 1 GiB.
 */
import { createHash } from "node:crypto";
import { performance } from "node:perf_hooks";
import { CONTENT_HASH_SCHEME, digest, endsChunk } from "../../packages/core/src/translate/canonical";
import { objectCount as countOf, Translator, type TranslateInput, type TranslateOutput } from "../../packages/core/src/translate/index";
import { benchTenant, FULL_SHAPE } from "./translate-tenant";

function objectCount(out: TranslateOutput): number {
  return Object.values(out.clusters).reduce((n, c) => n + countOf(c), 0);
}

function timed<T>(run: () => T): { result: T; ms: number } {
  const start = performance.now();
  const result = run();
  return { result, ms: performance.now() - start };
}

/**
 * The tenant after one user edit: the `k`-th kind of change of a bench policy (a timeout, a canary's
 * weights, a namespace-wide outlier setting, a fault on matched routes, an access policy's methods),
 * as a new generation of that policy. The other policies stay the same objects.
 */
function withOneChange(input: TranslateInput, k: number): TranslateInput {
  const bump = <R extends { metadata: { generation: number } }>(r: R, spec: unknown): R => ({ ...r, spec, metadata: { ...r.metadata, generation: r.metadata.generation + 1 + k } });
  if (k % 5 === 4) {
    const [first, ...rest] = input.accessPolicies;
    if (first === undefined) return input;
    return { ...input, accessPolicies: [bump(first, { ...first.spec, allowedMethods: Math.floor(k / 5) % 2 === 0 ? ["GET", "PUT"] : ["GET"] }), ...rest] };
  }
  const index = [0, 4, 7, 9][k % 5] as number;
  const policies = [...input.trafficPolicies];
  const p = policies[index];
  if (p === undefined) return input;
  const policy = p.spec.policy;
  const changed =
    policy.trafficShift !== undefined
      ? { ...policy, trafficShift: { destinations: policy.trafficShift.destinations.map((d, i) => ({ ...d, weight: i === 0 ? 80 - k : 20 + k })) } }
      : policy.outlierDetection !== undefined
        ? { ...policy, outlierDetection: { consecutiveErrors: 6 + k } }
        : policy.faultInjection !== undefined
          ? { ...policy, faultInjection: { ...policy.faultInjection, percentage: 2 + k } }
          : { ...policy, requestTimeout: `${42 + k}s` };
  policies[index] = bump(p, { ...p.spec, policy: changed });
  return { ...input, trafficPolicies: policies };
}

const shape = { ...FULL_SHAPE, clusters: Number(process.argv[2] ?? FULL_SHAPE.clusters), servicesPerCluster: Number(process.argv[3] ?? FULL_SHAPE.servicesPerCluster) };
const input = benchTenant(shape);
console.log(`tenant: ${shape.clusters} clusters × ${shape.servicesPerCluster} services = ${input.destinations.length} destinations, ${input.workloads.length} workloads, ${input.trafficPolicies.length} TrafficPolicies, ${input.accessPolicies.length} AccessPolicies, 1 VirtualMesh federating everything`);

/**
 * Serialises every object once and hashes it as the snapshot content hash defines it (each object's
 * JSON without labels digested with its labels' digest, in chunks cut after a digest starting with a
 * zero byte; Canonicalizer.contentHash), checking the result against the hash translation computed.
 * Returns the time it took. The objects are canonical already, so plain JSON.stringify gives their
 * canonical JSON.
 */
function floor(out: TranslateOutput): number {
  // The objects as JS objects first (translation hands them out on first use), then the floor proper.
  for (const c of Object.values(out.clusters)) void c.objects.length;
  const start = performance.now();
  for (const [name, c] of Object.entries(out.clusters)) {
    const hash = createHash("sha256").update(`${CONTENT_HASH_SCHEME}\n${JSON.stringify(c.certificates)}\n`);
    let chunk: Buffer[] = [];
    c.objects.forEach((object, i) => {
      const { labels, ...metadata } = object.metadata;
      const objectDigest = digest(JSON.stringify({ ...object, metadata }));
      chunk.push(objectDigest, digest(JSON.stringify(labels)));
      if (endsChunk(objectDigest) || i === c.objects.length - 1) {
        hash.update(digest(Buffer.concat(chunk)));
        chunk = [];
      }
    });
    const folded = `sha256:${hash.digest("hex")}`;
    if (folded !== c.hash) throw new Error(`cluster ${name}: the output hashes to ${folded}, translation said ${c.hash}`);
  }
  return performance.now() - start;
}

/** What the comparison needs from an output, so the next translation does not run with two outputs alive. */
function summary(out: TranslateOutput) {
  const statuses = Object.values(out.statuses);
  return {
    objects: objectCount(out),
    clusters: Object.keys(out.clusters).length,
    hashes: new Map(Object.entries(out.clusters).map(([name, c]) => [name, c.hash])),
    accepted: statuses.filter((s) => s.state === "ACCEPTED").length,
    invalid: statuses.filter((s) => s.state === "INVALID").length,
  };
}

// The worker's Translator: the first call translates in full, the next one only what the change reaches.
const translator = new Translator();
const full = timed(() => summary(translator.translate(input)));
const fullSummary = full.result;
const objects = fullSummary.objects;
console.log(`full translation: ${full.ms.toFixed(0)} ms, ${objects} objects in ${fullSummary.clusters} clusters (${Math.round(objects / (full.ms / 1000))} objects/s)`);
console.log(`statuses: ${fullSummary.accepted} ACCEPTED, ${fullSummary.invalid} INVALID`);

// One-policy changes of five kinds, three rounds, each on the tenant as the previous one left it, as a
// worker sees them; the figure is the median (the first changes after a cold start run unoptimised code).
let changed: TranslateOutput | undefined;
let current = input;
const changes: { ms: number; clusters: number }[] = [];
for (let k = 0; k < 15; k++) {
  const before = changed === undefined ? fullSummary.hashes : summary(changed).hashes;
  current = withOneChange(current, k);
  changed = undefined;
  const change = timed(() => summary((changed = translator.translate(current))));
  changes.push({ ms: change.ms, clusters: [...change.result.hashes].filter(([name, hash]) => hash !== before.get(name)).length });
}
const changeMs = changes.map((c) => c.ms).sort((a, b) => a - b)[7] as number;
console.log(`one policy changed: ${changes.map((c) => `${c.ms.toFixed(0)} ms (${c.clusters} cluster(s) changed)`).join(", ")}; median ${changeMs.toFixed(0)} ms (incremental)`);

// Peak memory of the full translation and the policy changes (one translation kept at a time).
const peakRssMb = Math.round(process.resourceUsage().maxRSS / 1024);

// A discovery report of one cluster: one service's endpoints changed and one workload relabelled, as
// pods come and go; the median of five such reports, each on a different service.
const discoveries: number[] = [];
for (let k = 0; k < 5; k++) {
  const at = k * 7;
  const destinations = [...current.destinations];
  const d = destinations[at];
  if (d !== undefined) destinations[at] = { ...d, spec: { ...d.spec, endpoints: d.spec.endpoints.slice(1) } };
  const workloads = [...current.workloads];
  const w = workloads[at * 3];
  if (w !== undefined) workloads[at * 3] = { ...w, spec: { ...w.spec, labels: { ...w.spec.labels, canary: String(k) } } };
  current = { ...current, destinations, workloads };
  changed = undefined;
  discoveries.push(timed(() => summary((changed = translator.translate(current)))).ms);
}
const discoveryMs = discoveries.toSorted((a, b) => a - b)[2] as number;
console.log(`one cluster's discovery changed: ${discoveries.map((ms) => `${ms.toFixed(0)} ms`).join(", ")}; median ${discoveryMs.toFixed(0)} ms (incremental)`);

// Peak memory with the discovery changes too (a world is rebuilt beside the kept one), before the floor builds every object.
const peakWithDiscoveryMb = Math.round(process.resourceUsage().maxRSS / 1024);
console.log(`peak RSS: ${peakRssMb} MiB (whole process: the input tenant, one translation kept), ${peakWithDiscoveryMb} MiB with the discovery changes`);
const floorMs = floor(changed as TranslateOutput);
changed = undefined;
console.log(`floor (serialise and hash the output once): ${floorMs.toFixed(0)} ms; full / floor = ${(full.ms / floorMs).toFixed(2)}`);
console.log(
  JSON.stringify({
    bench: "translate",
    full_ms: Math.round(full.ms),
    floor_ms: Math.round(floorMs),
    full_over_floor: Math.round((full.ms / floorMs) * 100) / 100,
    peak_rss_mb: peakRssMb,
    peak_rss_with_discovery_mb: peakWithDiscoveryMb,
    objects,
    objects_per_s: Math.round(objects / (full.ms / 1000)),
    one_policy_change_ms: Math.round(changeMs),
    first_change_ms: Math.round((changes[0] as { ms: number }).ms),
    change_over_full: Math.round((changeMs / full.ms) * 1000) / 1000,
    discovery_change_ms: Math.round(discoveryMs),
  }),
);
