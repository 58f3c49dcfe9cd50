import { z } from "zod";
import { readEnv } from "./env";
import { createRuntime } from "./runtime";
import { runMaintenance } from "../ops/maintenance";

const runtime = createRuntime(readEnv());
const event = z.object({ task: z.enum(["reconcile", "refresh"]) });

export const handler = async (input: unknown): Promise<{ enqueued: number }> => {
  const { task } = event.parse(input);
  return { enqueued: await runMaintenance({ store: runtime.store, queue: runtime.app.queue, log: runtime.worker.log, now: () => new Date() }, task) };
};
