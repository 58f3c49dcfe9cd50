import { readEnv } from "../env";
import { createRuntime } from "../runtime";
import { createWorker } from "./handler";

export const handler = createWorker(createRuntime(readEnv()).worker);
