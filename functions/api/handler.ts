import { handle } from "hono/aws-lambda";
import { readEnv } from "../env";
import { appDeps } from "../runtime";
import { createApp } from "./app";

export const handler = handle(createApp(appDeps(readEnv())));
