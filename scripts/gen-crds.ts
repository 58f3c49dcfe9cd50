/**
 * Writes the agent chart's CustomResourceDefinitions (packages/agent/chart/files/crds/<plural>.yaml)
 * from core's document schemas (docs/gitops.md#the-custom-resources). `npm run gen:crds`; a unit test
 * fails when the files differ from what this writes. Prints the files written as JSON.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { customResourceDefinitionFiles } from "../packages/agent/src/authoring/crds";

const dir = join(import.meta.dirname, "../packages/agent/chart/files/crds");
const files = customResourceDefinitionFiles();
mkdirSync(dir, { recursive: true });
// A kind no longer generated leaves no file behind.
for (const name of readdirSync(dir)) if (!(name in files)) rmSync(join(dir, name));
for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
console.log(JSON.stringify({ dir, files: Object.keys(files) }));
