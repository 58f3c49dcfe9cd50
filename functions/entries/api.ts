import { handle } from "hono/aws-lambda";
import { readEnv } from "./env";
import { createRuntime } from "./runtime";
import { createApp } from "../http/app";

export const handler = handle(createApp(createRuntime(readEnv()).app));
