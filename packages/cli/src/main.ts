#!/usr/bin/env node
/**
 * The entry of `meshplane`: `--version` answers from here without loading the command tree; anything
 * else loads it (program.ts). MESHPLANE_CLI_NO_RUN lets tests import the tree without running it.
 */
import { VERSION } from "./version";

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === "--version" || args[0] === "-v")) process.stdout.write(`${VERSION}\n`);
else if (process.env.MESHPLANE_CLI_NO_RUN === undefined) await (await import("./program")).main(process.argv);
