/**
 * A real Prometheus server for tests: the binary scripts/prometheus.sh builds from the
 * github.com/prometheus/prometheus Go module (cached by version), started on a free 127.0.0.1 port with
 * its own temp data dir and a config with no scrape jobs, so its TSDB holds exactly what a test writes
 * through remote write (`--web.enable-remote-write-receiver`, ./remote-write.ts).
 *
 * `storage.tsdb.out_of_order_time_window: 30d` lets a test load the past in any order (and retention is
 * 30d, counted from the newest sample, not the clock). Samples must not lie more than 10 minutes in the
 * future. Instant selectors look back 5 minutes: always query at an explicit `time` (`instantQuery`).
 * The binary has no web UI assets; the HTTP API, `/-/ready` and `/api/v1/write` are all there.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type RemoteWriteResult, type Series, remoteWrite } from "./remote-write";

const BUILD_SCRIPT = fileURLToPath(new URL("../../../scripts/prometheus.sh", import.meta.url));

const CONFIG = `# No scrape jobs: the TSDB holds only what the test remote-writes.
global:
  scrape_interval: 15s
storage:
  tsdb:
    out_of_order_time_window: 30d
    retention:
      time: 30d
`;

let binary: string | undefined;

/** The Prometheus binary, built on first use (scripts/test.sh builds it before the suite runs). */
export function prometheusBinary(): string {
  binary ??= execFileSync("bash", [BUILD_SCRIPT], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim();
  return binary;
}

/** One element of an instant vector, its value parsed (`NaN`, `+Inf` and `-Inf` included). */
export interface VectorSample {
  metric: Record<string, string>;
  value: number;
}

/** One series of a range query: its labels and its values at each step (epoch seconds), parsed. */
export interface MatrixSeries {
  metric: Record<string, string>;
  values: [timeSeconds: number, value: number][];
}

export interface PrometheusServer {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** The remote write endpoint, `<url>/api/v1/write`. */
  writeUrl: string;
  /** The temp dir holding the config and the TSDB (removed by `stop`). */
  dir: string;
  /** The server's log so far (its stderr, the last 64 KiB). */
  log(): string;
  /** Remote-writes the series (./remote-write.ts `remoteWrite`). */
  write(series: readonly Series[], maxSamples?: number): Promise<RemoteWriteResult>;
  /** `instantQuery` against this server. */
  query(promql: string, timeSeconds: number): Promise<VectorSample[]>;
  /** `rangeQuery` against this server. */
  queryRange(promql: string, start: number, end: number, stepSeconds: number): Promise<MatrixSeries[]>;
  /** Kills the server (SIGTERM, SIGKILL after 10 s), waits for its exit and removes its dir. Idempotent. */
  stop(): Promise<void>;
}

export interface StartPrometheusOptions {
  /** Default: `prometheusBinary()`. */
  binary?: string;
  /** How long to wait for `/-/ready` (default 60 s: the TSDB opens in well under a second). */
  readyTimeoutMs?: number;
}

/**
 * Starts a Prometheus on `127.0.0.1:<free port>` (the kernel picks it; read from the server's log) with a
 * fresh data dir, and resolves once `/-/ready` answers 200 (the TSDB is open; `/-/healthy` answers
 * earlier). Rejects with the server's log when it exits or is not ready in time.
 */
export async function startPrometheus(options: StartPrometheusOptions = {}): Promise<PrometheusServer> {
  const bin = options.binary ?? prometheusBinary();
  const dir = await mkdtemp(join(tmpdir(), "meshplane-prometheus-"));
  await writeFile(join(dir, "prometheus.yml"), CONFIG);
  // The cwd is the temp dir: the binary serves UI files from ./static, if any.
  const child = spawn(
    bin,
    [
      `--config.file=${join(dir, "prometheus.yml")}`,
      `--storage.tsdb.path=${join(dir, "data")}`,
      "--web.listen-address=127.0.0.1:0",
      "--web.enable-remote-write-receiver",
      "--log.level=info",
    ],
    { cwd: dir, stdio: ["ignore", "ignore", "pipe"] },
  );
  let log = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (d: string) => {
    log = (log + d).slice(-65536);
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    await kill(child, exited);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const url = await waitReady(child, () => log, options.readyTimeoutMs ?? 60_000);
    return {
      url,
      writeUrl: `${url}/api/v1/write`,
      dir,
      log: () => log,
      write: (series, maxSamples) => remoteWrite(`${url}/api/v1/write`, series, maxSamples),
      query: (promql, timeSeconds) => instantQuery(url, promql, timeSeconds),
      queryRange: (promql, start, end, stepSeconds) => rangeQuery(url, promql, start, end, stepSeconds),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

async function kill(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  await exited;
  clearTimeout(timer);
}

/** The listen address from the log line `msg="Listening on" ... address=127.0.0.1:PORT`, then `/-/ready` = 200. */
async function waitReady(child: ChildProcess, log: () => string, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let url: string | undefined;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`prometheus exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${log()}`);
    }
    url ??= listenUrl(log());
    if (url) {
      const ready = await fetch(`${url}/-/ready`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ready) return url;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`prometheus was not ready within ${timeoutMs} ms:\n${log()}`);
}

function listenUrl(log: string): string | undefined {
  const m = /msg="Listening on"[^\n]*\baddress=(127\.0\.0\.1:\d+)/.exec(log);
  return m ? `http://${m[1]}` : undefined;
}

/** A value of Prometheus' JSON (`"1.5"`, `"NaN"`, `"+Inf"`, `"-Inf"`) as a number. */
export function parseValue(v: string): number {
  if (v === "+Inf") return Number.POSITIVE_INFINITY;
  if (v === "-Inf") return Number.NEGATIVE_INFINITY;
  return Number(v);
}

/** POSTs a query to `/api/v1/<endpoint>` and returns `data`; throws with Prometheus' error on anything but success. */
async function api(url: string, endpoint: string, params: Record<string, string>): Promise<{ resultType: string; result: unknown }> {
  const res = await fetch(`${url}/api/v1/${endpoint}`, {
    method: "POST",
    body: new URLSearchParams(params),
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
  });
  const body = (await res.json()) as { status: string; errorType?: string; error?: string; data?: { resultType: string; result: unknown } };
  if (body.status !== "success" || !body.data) throw new Error(`${endpoint} ${params.query}: ${body.errorType ?? res.status}: ${body.error ?? "no data"}`);
  return body.data;
}

/**
 * `/api/v1/query` at an explicit time (epoch seconds): the instant vector, values parsed. A scalar result
 * comes back as one element with no labels. Throws with Prometheus' error (`errorType: error`) on
 * anything but success.
 */
export async function instantQuery(url: string, promql: string, timeSeconds: number): Promise<VectorSample[]> {
  const { resultType, result } = await api(url, "query", { query: promql, time: String(timeSeconds) });
  if (resultType === "scalar") return [{ metric: {}, value: parseValue((result as [number, string])[1]) }];
  if (resultType !== "vector") throw new Error(`query ${promql}: a ${resultType}, not an instant vector`);
  return (result as { metric: Record<string, string>; value: [number, string] }[]).map((r) => ({ metric: r.metric, value: parseValue(r.value[1]) }));
}

/**
 * `/api/v1/query_range` from `start` to `end` (epoch seconds, both included) every `stepSeconds`: each
 * series with its values parsed. Throws with Prometheus' error on anything but success.
 */
export async function rangeQuery(url: string, promql: string, start: number, end: number, stepSeconds: number): Promise<MatrixSeries[]> {
  const { resultType, result } = await api(url, "query_range", { query: promql, start: String(start), end: String(end), step: String(stepSeconds) });
  if (resultType !== "matrix") throw new Error(`query_range ${promql}: a ${resultType}, not a matrix`);
  return (result as { metric: Record<string, string>; values: [number, string][] }[]).map((r) => ({
    metric: r.metric,
    values: r.values.map(([t, v]) => [t, parseValue(v)] as [number, number]),
  }));
}
