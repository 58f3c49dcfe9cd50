import { readEnv } from "./env";
import { createRuntime } from "./runtime";
import { createWorker } from "../translation/batch";

export const handler = createWorker(createRuntime(readEnv()).worker);
