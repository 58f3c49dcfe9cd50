import { ValidationError } from "@meshplane/core";
import { startAgent } from "./agent";
import { readOptions } from "./options";

/** Entry point of the agent image: options from flags and environment, then the composition root. */
try {
  const options = readOptions(process.argv.slice(2), process.env);
  const agent = await startAgent(options);
  console.log(JSON.stringify({ level: "info", time: new Date().toISOString(), msg: "agent started", cluster: options.cluster, healthPort: agent.healthPort }));
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => void agent.stop().then(() => process.exit(0)));
  }
} catch (error) {
  if (error instanceof ValidationError) {
    for (const e of error.errors) console.error(`${e.path}: ${e.message}`);
  } else console.error((error as Error).message);
  process.exit(1);
}
