/**
 * `tsx infra/bin/bundle.ts [--analyze] <entry> <outdir>`: bundles one function (infra/lib/bundle.ts)
 * and says on stderr how big it is; `--analyze` adds what each output file holds, input by input.
 * The stack runs this in a child process while it synthesises, because CDK builds assets
 * synchronously and esbuild runs plugins only in its asynchronous API.
 */
import { join } from "node:path";
import { analyzeMetafile } from "esbuild";
import { ROOT, bundleFunction, describeBundle } from "../lib/bundle";

const args = process.argv.slice(2);
const analyze = args[0] === "--analyze";
const [entry, outdir] = analyze ? args.slice(1) : args;
if (entry === undefined || outdir === undefined) {
  console.error("usage: tsx infra/bin/bundle.ts [--analyze] <entry, relative to the repository root> <outdir>");
  process.exit(2);
}
try {
  const bundle = await bundleFunction(join(ROOT, entry), outdir);
  if (analyze) console.error(await analyzeMetafile(bundle.metafile, { verbose: false }));
  console.error(describeBundle(entry, bundle));
} catch {
  // esbuild has printed what went wrong.
  process.exit(1);
}
