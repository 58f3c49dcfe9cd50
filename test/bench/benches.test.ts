/**
 * Every bench, at a tiny size, as `npm run bench -- <name>` runs it: it must finish and print its
 * figures as one JSON object on its last line. The figures are not judged here (a test never asserts
 * a timing); each bench checks the answers it gets and fails on a wrong one, so a bench that no
 * longer works fails the suite instead of waiting for someone to run it.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { benchNames } from "./_names";

const ROOT = join(import.meta.dirname, "../..");

/** The tiny size of each bench: its arguments and environment. A new bench needs a line here. */
const TINY: Record<string, { args?: string[]; env?: Record<string, string> }> = {
  authoring: { env: { ITEMS: "20", CLUSTERS: "2", SERVICES: "3", RUNS: "1", CRS: "3", FLOOD: "5" } },
  agent: { env: { PODS: "5", OBJECTS: "5", WRITES: "1", SAMPLE_MS: "500", SPREAD_MS: "0" } },
  "cli-start": { env: { RUNS: "1" } },
  "cold-start": {},
  console: { env: { DESTINATIONS: "20", RUNS: "1" } },
  "console-graph": { env: { NODES: "40", CLUSTERS: "2", RUNS: "1" } },
  fairness: { env: { SAMPLES: "10", FLOODERS: "2" } },
  graph: { env: { EDGES: "50", LIMIT: "10", RUNS: "2" } },
  "list-pages": { env: { POLICIES: "25", LIMIT: "10" } },
  "metrics-agent": { env: { EDGES: "5", MINUTES: "2" } },
  "metrics-cost": { env: { CLUSTERS: "2", PER_TENANT: "1", EDGES: "20" } },
  poll: { env: { POLLS: "120" } },
  propagation: { env: { CLUSTERS: "2", WRITES: "1" } },
  push: { args: ["3"] },
  soak: { env: { AGENTS: "3", INTERVAL_S: "1", DURATION_S: "2" } },
  translate: { args: ["2", "3", "20"] },
  "translate-job": { args: ["2", "3", "20"] },
};

/** The benches `npm run bench` offers. */
const benches = benchNames();

/**
 * Runs one bench in a process group of its own; when the test is aborted (its timeout), the whole
 * group is killed, so no bench outlives its test.
 */
function runBench(name: string, signal: AbortSignal): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const tiny = TINY[name] ?? {};
  return new Promise((resolve, reject) => {
    const child = spawn("npm", ["run", "--silent", "bench", "--", name, ...(tiny.args ?? [])], {
      cwd: ROOT,
      // One DynamoDB Local for every bench (the project's global setup), each bench in a table of its own.
      env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true", BENCH_DYNAMODB_ENDPOINT: inject("dynamoEndpoint"), ...tiny.env },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    const kill = () => {
      try {
        process.kill(-(child.pid as number), "SIGKILL");
      } catch {
        // already gone
      }
    };
    signal.addEventListener("abort", kill, { once: true });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.once("error", reject);
    child.once("close", (code) => {
      signal.removeEventListener("abort", kill);
      resolve({ code, stdout, stderr });
    });
  });
}

describe("benches at a tiny size", () => {
  it("every bench has a tiny size here", () => {
    expect(Object.keys(TINY).sort()).toEqual(benches);
  });

  for (const name of benches) {
    it(`${name} completes and prints its figures as JSON`, async ({ signal }) => {
      const { code, stdout, stderr } = await runBench(name, signal);
      const lines = stdout.trim().split("\n");
      const context = `npm run bench -- ${name} exited ${code}\n--- last output ---\n${lines.slice(-10).join("\n")}\n--- stderr ---\n${stderr.slice(-3000)}`;
      expect(code, context).toBe(0);
      let figures: unknown;
      expect(() => (figures = JSON.parse(lines.at(-1) ?? "")), context).not.toThrow();
      expect(figures, context).toMatchObject({ bench: name });
    });
  }
});
