import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { program } from "../../packages/cli/src/program";
import { checkDocs, checkMarkdown, figuresOf, headingId, repoOf } from "./docs-check";

const root = fileURLToPath(new URL("../..", import.meta.url));
const repo = repoOf(root, program());
/** Problems of a made-up doc, as if it were docs/x.md. */
const check = (markdown: string) => checkMarkdown(repo, "docs/x.md", markdown).map((p) => `${p.line}: ${p.message}`);

describe("README.md and docs/*.md", () => {
  it("hold nothing the docs check finds: commands and flags exist, links resolve, figures name their bench", () => {
    const problems = checkDocs(repo).map((p) => `${p.file}:${p.line}: ${p.message}`);
    expect(problems).toEqual([]);
  });

  it("the README's row for `npm run bench` lists every bench", () => {
    const row = readFileSync(join(root, "README.md"), "utf8")
      .split("\n")
      .find((l) => l.startsWith("| `npm run bench -- <name>` |"));
    const listed = [...(row ?? "").matchAll(/`([\w-]+)`/g)].map((m) => m[1] as string).filter((name) => repo.benches.has(name));
    expect(listed.toSorted()).toEqual([...repo.benches].toSorted());
  });

  it("would not if the README had a broken link or a made-up flag", () => {
    const readme = readFileSync(join(root, "README.md"), "utf8");
    const broken = `${readme}\nSee [the guide](docs/no-such-guide.md) and [limits](docs/api.md#no-such-heading).\n\n\`\`\`sh\nmeshplane apply -f policies/ --made-up-flag\n\`\`\`\n`;
    const problems = checkMarkdown(repo, "README.md", broken).map((p) => p.message);
    expect(problems).toEqual([
      "link docs/no-such-guide.md: docs/no-such-guide.md does not exist",
      "link docs/api.md#no-such-heading: docs/api.md has no heading #no-such-heading",
      "`meshplane apply` has no option --made-up-flag",
    ]);
  });
});

describe("the docs check", () => {
  describe("commands", () => {
    it("knows package.json's scripts and test/bench's benches", () => {
      expect(check("```sh\nnpm run lint\nnpm run -s dev-agent -- token\nnpm run bench -- poll\nnpm run bench -- <name>\n```\n")).toEqual([]);
      expect(check("```sh\nnpm run lnit\nnpm run bench -- pol\n```\n")).toEqual([
        '2: `npm run lnit`: package.json has no script "lnit"',
        '3: `npm run bench -- pol`: test/bench has no bench "pol"',
      ]);
      expect(check("Run `npm run tset` first.\n")).toEqual(['1: `npm run tset`: package.json has no script "tset"']);
    });

    it("knows the CLI's commands, aliases and each command's flags (with those of the commands above it)", () => {
      const good = [
        "meshplane login --url http://127.0.0.1:8080 --token-stdin --name prod",
        "meshplane --context prod get tp -l team=a -o yaml",
        "meshplane cluster register c1 --install --kube-context k",
        "meshplane import gloo -f gloo.yaml | meshplane apply -f - --dry-run   # a comment --not-a-flag",
        'echo "$T" | meshplane login --url "$API" --token-stdin',
      ];
      expect(check(`\`\`\`sh\n${good.join("\n")}\n\`\`\`\n`)).toEqual([]);
      expect(check("```sh\nmeshplane clustr list\nmeshplane cluster list --instal\nmeshplane get tp --wait\n```\n")).toEqual([
        "2: `meshplane clustr`: no such command",
        "3: `meshplane cluster list` has no option --instal",
        "4: `meshplane get` has no option --wait",
      ]);
      expect(check("Use `meshplane apply --force`.\n")).toEqual(["1: `meshplane apply` has no option --force"]);
    });

    it("reads only shell code blocks as commands, not output or YAML", () => {
      expect(check("```\nmeshplane control plane listening\n```\n\n```yaml\nmeshplane: nope\n```\n")).toEqual([]);
    });
  });

  describe("links and paths", () => {
    it("resolves relative links and their anchors; leaves URLs alone", () => {
      expect(check("[api](api.md), [limits](api.md#rate-limits), [here](#title), [web](https://example.com/x.md), [dir](../infra)\n\n# Title\n")).toEqual([]);
      expect(check("[a](nope.md) [b](api.md#nope) [c](#nope)\n")).toEqual([
        "1: link nope.md: docs/nope.md does not exist",
        "1: link api.md#nope: docs/api.md has no heading #nope",
        "1: link #nope: docs/x.md has no heading #nope",
      ]);
    });

    it("takes heading ids as GitHub makes them", () => {
      expect(headingId("Rate limits")).toBe("rate-limits");
      expect(headingId("One process for everyone: turns and held refusals")).toBe("one-process-for-everyone-turns-and-held-refusals");
      expect(headingId("Performance (`npm run bench -- translate`)")).toBe("performance-npm-run-bench----translate");
    });

    it("checks that repository paths in code spans exist (not build outputs)", () => {
      expect(check("See `functions/http/app.ts`, `packages/cli/dist/meshplane.js` and `test/bench/*.ts`.\n")).toEqual([]);
      expect(check("See `functions/http/nope.ts`.\n")).toEqual(["1: `functions/http/nope.ts` does not exist"]);
    });
  });

  describe("figures", () => {
    it("finds numbers with units of time, size, CPU, share and money, not in code", () => {
      expect(figuresOf("took 1.1 s and 68–69 MiB, 3.3 mCPU, 51 %, $0.23; `5 s` and 404s are not").map((f) => f.figure)).toEqual([
        "1.1 s",
        "68–69 MiB",
        "3.3 mCPU",
        "51 %",
        "$0.23",
      ]);
      expect(figuresOf("10,000 clusters: 1,321 KiB").map((f) => f.figure)).toEqual(["1,321 KiB"]);
    });

    it("leaves settings, limits and prices, which it can tell by the words around them", () => {
      const settings = [
        "every 5 minutes",
        "(5 minutes by default)",
        "at most 300 KiB",
        "the 1 MiB body limit",
        "a 30 s lease",
        "`--timeout` (300 s)",
        "`interval` 10 s",
        "$1.00/million",
        "$0.25 per million",
        "uniform in [0, 30 s)",
        "with a TTL of 3 hours",
        "from 1 ms to 24 h",
      ];
      for (const s of settings) expect(figuresOf(s), s).toEqual([]);
      // A path in a code span names no setting: the figure before it is still one.
      expect(figuresOf("applied within 1.1 s (`test/e2e/push.test.ts`)").map((f) => f.figure)).toEqual(["1.1 s"]);
    });

    it("asks each figure's section, or a heading above it, to name the bench that produces it", () => {
      expect(check("# Push\n\nA change lands within 1.1 s (`test/e2e/push.test.ts`).\n")).toEqual([
        '3: figure "1.1 s" names no bench in its section (npm run bench -- <name>)',
      ]);
      expect(check("# Push\n\nA change lands within 1.1 s (`npm run bench -- agent`).\n")).toEqual([]);
      expect(check("# Push\n\nMeasured by `push`: 1.1 s.\n")).toEqual([]);
      expect(check("## Measured (`npm run bench -- agent`)\n\n### Idle\n\n68 MiB.\n")).toEqual([]);
      // Another section's bench does not count.
      expect(check("# A\n\n`npm run bench -- agent`\n\n# B\n\n68 MiB.\n")).toEqual([
        '7: figure "68 MiB" names no bench in its section (npm run bench -- <name>)',
      ]);
      // A bench that does not exist names nothing.
      expect(check("# A\n\n`npm run bench -- nope`: 68 MiB.\n").at(-1)).toBe('3: figure "68 MiB" names no bench in its section (npm run bench -- <name>)');
    });

    it("reads a paragraph as one text, so a figure broken across lines is still found, on its line", () => {
      expect(check("# Build\n\nThe first build takes 5–15\nminutes.\n")).toEqual([
        '3: figure "5–15 minutes" names no bench in its section (npm run bench -- <name>)',
      ]);
      expect(check("# Build\n\nA `code span` first,\nthen 8 minutes.\n")).toEqual([
        '4: figure "8 minutes" names no bench in its section (npm run bench -- <name>)',
      ]);
    });

    it("leaves table columns headed by what they set", () => {
      expect(check("# Limits\n\n| class | window | per |\n|---|---|---|\n| read | 1 s | tenant |\n")).toEqual([]);
      expect(check("# Runs\n\n| class | took |\n|---|---|\n| read | 1 s |\n")).toEqual([
        '5: figure "1 s" names no bench in its section (npm run bench -- <name>)',
      ]);
    });
  });
});
