/**
 * Translation benchmark: `npm run bench -- translate [clusters] [servicesPerCluster] [trafficPolicies]`
 * (test/bench/_bench-tenant.ts, `shapeOf`).
 * Prints human-readable lines, then as its last line one JSON object
 * {"bench":"translate","full_ms","floor_ms","floor_distinct_objects","floor_mib","full_over_floor","peak_rss_mb","peak_rss_with_discovery_mb","objects","objects_per_s","one_policy_change_ms","first_change_ms","change_over_full","discovery_change_ms"}.
 * `floor_ms` is the time to hash the output's distinct bytes once into every cluster's content hash
 * (`floor` below): no translation can produce its output faster than that, so `full_ms / floor_ms`
 * says how close it is.
 * Targets: full translation of the 100 × 100 tenant under 2 s and 1 GiB (what it measures:
 * docs/translation.md, "Performance").
 */
import { createHash } from "node:crypto";
import { performance } from "node:perf_hooks";
import { CONTENT_HASH_SCHEME, digest, endsChunk } from "../../packages/core/src/translate/output/canonical";
import { objectCount as countOf, Translator, type TranslateInput, type TranslateOutput, translate } from "../../packages/core/src/translate/index";
import { benchTenant, shapeOf } from "./_bench-tenant";

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
  const bump = <R extends { metadata: { generation: number } }>(r: R, spec: unknown): R => ({
    ...r,
    spec,
    metadata: { ...r.metadata, generation: r.metadata.generation + 1 + k },
  });
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

const shape = shapeOf(process.argv.slice(2));
const input = benchTenant(shape);
console.log(
  `tenant: ${shape.clusters} clusters × ${shape.servicesPerCluster} services = ${input.destinations.length} destinations, ${input.workloads.length} workloads, ${input.trafficPolicies.length} TrafficPolicies, ${input.accessPolicies.length} AccessPolicies, 1 VirtualMesh federating everything`,
);

/**
 * The floor: the output's distinct bytes hashed once. Translation must at least produce the
 * snapshot content hash of each cluster's output (Canonicalizer.contentHash); the least that takes
 * is one SHA-256 pass over each distinct object's canonical JSON without labels (an object sent to
 * many clusters differs between them only in its labels), then each cluster's chunk digests over
 * those digests and its labels' digest. Everything else is set up before the clock starts: the
 * objects built, the distinct ones found and serialised. The hashes must equal the ones translation
 * computed. Returns the time and what was hashed.
 */
function floor(out: TranslateOutput): { ms: number; distinct: number; bytes: number } {
  // An object is one of the sink's prepared entries: the same spec and annotations objects wherever it goes.
  const index = new Map<unknown, Map<unknown, Map<string, number>>>();
  const distinct: string[] = [];
  const clusters = Object.entries(out.clusters).map(([name, c]) => {
    const ids = new Int32Array(c.objects.length);
    c.objects.forEach((object, i) => {
      const bySpec = index.get(object.spec) ?? new Map<unknown, Map<string, number>>();
      index.set(object.spec, bySpec);
      const byAnnotations = bySpec.get(object.metadata.annotations) ?? new Map<string, number>();
      bySpec.set(object.metadata.annotations, byAnnotations);
      const key = `${object.apiVersion}/${object.kind}/${object.metadata.namespace ?? ""}/${object.metadata.name}`;
      let id = byAnnotations.get(key);
      if (id === undefined) {
        const { labels: _labels, ...metadata } = object.metadata;
        byAnnotations.set(key, (id = distinct.push(JSON.stringify({ ...object, metadata })) - 1));
      }
      ids[i] = id;
    });
    return {
      name,
      ids,
      labels: JSON.stringify(c.objects[0]?.metadata.labels ?? null),
      head: `${CONTENT_HASH_SCHEME}\n${JSON.stringify(c.certificates)}\n`,
      hash: c.hash,
    };
  });
  index.clear();
  const bytes = distinct.map((json) => Buffer.from(json));
  distinct.length = 0;
  const start = performance.now();
  const digests = bytes.map((b) => digest(b));
  for (const c of clusters) {
    const labelDigest = digest(c.labels);
    const hash = createHash("sha256").update(c.head);
    let chunk: Buffer[] = [];
    c.ids.forEach((id, i) => {
      const objectDigest = digests[id] as Buffer;
      chunk.push(objectDigest, labelDigest);
      if (endsChunk(objectDigest) || i === c.ids.length - 1) {
        hash.update(digest(Buffer.concat(chunk)));
        chunk = [];
      }
    });
    const folded = `sha256:${hash.digest("hex")}`;
    if (folded !== c.hash) throw new Error(`cluster ${c.name}: the output hashes to ${folded}, translation said ${c.hash}`);
  }
  return { ms: performance.now() - start, distinct: bytes.length, bytes: bytes.reduce((n, b) => n + b.length, 0) };
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
console.log(
  `full translation: ${full.ms.toFixed(0)} ms, ${objects} objects in ${fullSummary.clusters} clusters (${Math.round(objects / (full.ms / 1000))} objects/s)`,
);
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
const unchanged = changes.findIndex((c) => c.clusters === 0);
if (unchanged >= 0) throw new Error(`policy change ${unchanged} changed no cluster's output`);
const changeMs = changes.map((c) => c.ms).sort((a, b) => a - b)[7] as number;
console.log(
  `one policy changed: ${changes.map((c) => `${c.ms.toFixed(0)} ms (${c.clusters} cluster(s) changed)`).join(", ")}; median ${changeMs.toFixed(0)} ms (incremental)`,
);

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
// The incremental translator's last answer must be what the plain translate gives for the same tenant.
const last = summary(changed as TranslateOutput);
const fresh = summary(translate(current));
const differs = [...fresh.hashes].filter(([name, hash]) => last.hashes.get(name) !== hash).map(([name]) => name);
if (differs.length > 0 || last.hashes.size !== fresh.hashes.size || last.accepted !== fresh.accepted || last.invalid !== fresh.invalid) {
  throw new Error(
    `after the changes, incremental and fresh translation differ (clusters ${differs.slice(0, 5).join(", ") || "none"}; ACCEPTED ${last.accepted} / ${fresh.accepted}, INVALID ${last.invalid} / ${fresh.invalid})`,
  );
}
const floored = floor(changed as TranslateOutput);
const floorMs = floored.ms;
changed = undefined;
console.log(
  `floor (the output's ${floored.distinct} distinct objects, ${Math.round(floored.bytes / 1024 / 1024)} MiB, hashed once into every cluster's content hash): ${floorMs.toFixed(0)} ms; full / floor = ${(full.ms / floorMs).toFixed(2)}`,
);
console.log(
  JSON.stringify({
    bench: "translate",
    full_ms: Math.round(full.ms),
    floor_ms: Math.round(floorMs),
    floor_distinct_objects: floored.distinct,
    floor_mib: Math.round((floored.bytes / 1024 / 1024) * 10) / 10,
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
