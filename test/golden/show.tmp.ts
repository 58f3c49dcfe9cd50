import { readFileSync } from "node:fs";
import { translate } from "../../packages/core/src/translate/index";
import { loadInput, renderOutput } from "./render";
console.log(renderOutput(translate(loadInput(readFileSync(process.argv[2] as string, "utf8")))));
