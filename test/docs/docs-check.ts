/**
 * The docs check: what README.md and docs/*.md say that a machine can hold them to.
 *
 * - **Commands.** In code blocks and code spans: `npm run X` names a script of package.json, `npm run
 *   bench -- NAME` a bench in test/bench, and `meshplane A B --flag` a command of the CLI's command
 *   tree (packages/cli/src/program.ts) that takes that flag (its own, or one of the commands above it).
 * - **Links.** A relative link names a file or folder that exists, and its `#anchor`, if any, a heading
 *   of that file (GitHub's heading ids).
 * - **Paths.** A code span naming a file or folder of the repository (`functions/...`, `packages/...`,
 *   `infra/...`, `test/...`, `scripts/...`, `docs/...`) names one that exists.
 * - **Figures.** A figure is a number with a unit of time (ms, s, minutes, hours), size (KiB, MiB,
 *   GiB, KB, MB, GB), CPU (mCPU), a percentage, or a dollar amount, outside code. Every figure's
 *   section (from its heading to the next) names the bench that produces it: `npm run bench -- NAME`,
 *   or the bench's name in a code span. A figure that is not measured — a setting, a limit, a price —
 *   says so where it stands: after "every", "default", "at most", "up to", "over", "after", "older
 *   than", "idle for", "capped at"; before "by default", "limit", "lease", "apart", "TTL", "timeout";
 *   a price as "$N/…" or "$N per …"; or in a table column headed by what it sets ("window", "limit",
 *   "default", "TTL", "timeout", "price").
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import type { program } from "../../packages/cli/src/program";
import { benchNames } from "../bench/_names";

/** The CLI's commander tree (the CLI's own commander, which may differ from the root's). */
type Command = ReturnType<typeof program>;

export interface Problem {
  file: string;
  line: number;
  message: string;
}

export interface Repo {
  root: string;
  /** package.json's scripts. */
  scripts: ReadonlySet<string>;
  /** The benches `npm run bench -- NAME` runs. */
  benches: ReadonlySet<string>;
  /** The CLI's command tree. */
  cli: Command;
}

/** The repository's scripts, benches and CLI. */
export function repoOf(root: string, cli: Command): Repo {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts?: Record<string, string> };
  return { root, scripts: new Set(Object.keys(pkg.scripts ?? {})), benches: new Set(benchNames(join(root, "test/bench"))), cli };
}

/** The docs the check reads: README.md and docs/*.md. */
export function docFiles(root: string): string[] {
  return [
    "README.md",
    ...readdirSync(join(root, "docs"))
      .filter((f) => f.endsWith(".md"))
      .sort()
      .map((f) => `docs/${f}`),
  ];
}

/** GitHub's id for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function headingId(text: string): string {
  const plain = text
    .replace(/`([^`]*)`/g, "$1")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/[*_]/g, "");
  return plain
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s-]/gu, "")
    .replace(/\s/g, "-");
}

/** The ids of a markdown text's headings (repeats get -1, -2, … as on GitHub). */
export function headingIds(markdown: string): Set<string> {
  const ids = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text, code } of lines(markdown)) {
    const m = code ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(text);
    if (!m?.[1]) continue;
    const id = headingId(m[1]);
    const n = seen.get(id) ?? 0;
    seen.set(id, n + 1);
    ids.add(n === 0 ? id : `${id}-${n}`);
  }
  return ids;
}

interface Line {
  text: string;
  /** 1-based. */
  number: number;
  /** Inside a fenced code block. */
  code: boolean;
  /** The fence's language, for lines inside one. */
  lang?: string;
}

function lines(markdown: string): Line[] {
  const out: Line[] = [];
  let fence: string | undefined;
  let lang: string | undefined;
  markdown.split("\n").forEach((text, i) => {
    const f = /^\s*(```+|~~~+)\s*([\w-]*)/.exec(text);
    if (f?.[1] && (fence === undefined || f[1].startsWith(fence))) {
      if (fence === undefined) {
        fence = f[1];
        lang = f[2] || undefined;
      } else fence = undefined;
      return;
    }
    out.push({ text, number: i + 1, code: fence !== undefined, ...(fence !== undefined && lang ? { lang } : {}) });
  });
  return out;
}

/** Code spans of a prose line (the text between single backticks). */
const spans = (text: string): string[] => [...text.matchAll(/(`+)([^`]+?)\1/g)].map((m) => m[2] as string);

// ---- commands ------------------------------------------------------------------------------------

/** Shell words of one command (quotes kept simple: '…' and "…" are one word). */
function words(command: string): string[] {
  return [...command.matchAll(/'[^']*'|"[^"]*"|\S+/g)].map((m) => m[0]);
}

/** The commands of a shell line: split at pipes, `&&`, `;`, `$(` and comments. */
function commandsOf(line: string): string[] {
  const noComment = line.replace(/(^|\s)#.*$/, "");
  return noComment
    .split(/\|\||&&|\||;|\$\(|\)/)
    .map((c) => c.trim())
    .filter(Boolean);
}

function optionNames(c: Command): string[] {
  return c.options.flatMap((o) => [o.long, o.short].filter((n): n is string => !!n));
}

/** Problems with one `meshplane …` command (the words after `meshplane`). */
export function checkCliCommand(cli: Command, args: string[]): string[] {
  const problems: string[] = [];
  let command = cli;
  const chain: Command[] = [cli];
  let i = 0;
  // Options before the subcommand belong to the program (`meshplane --context prod get tp`).
  for (; i < args.length; i++) {
    const word = args[i] as string;
    if (word.startsWith("-")) {
      // An option's value is not a command: skip it (`--context prod`).
      const option = chain.flatMap((c) => c.options).find((o) => o.long === word || o.short === word);
      if (option && (option.required || option.optional)) i++;
      continue;
    }
    const sub = command.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!sub) break;
    command = sub;
    chain.push(sub);
  }
  const next = args[i];
  if (command.commands.length > 0 && command.registeredArguments.length === 0 && next !== undefined && !next.startsWith("-")) {
    problems.push(`\`${["meshplane", ...chain.slice(1).map((c) => c.name()), next].join(" ")}\`: no such command`);
  }
  const known = new Set(["-h", "--help", ...chain.flatMap(optionNames)]);
  for (const word of args) {
    if (word === "--") break;
    if (!/^--?[A-Za-z]/.test(word)) continue;
    const flag = word.split("=")[0] as string;
    if (!known.has(flag))
      problems.push(
        `\`meshplane ${chain
          .slice(1)
          .map((c) => c.name())
          .join(" ")}\` has no option ${flag}`.replace("  ", " "),
      );
  }
  return problems;
}

/** Problems with the commands of one shell line (`npm run …`, `meshplane …`). */
export function checkShellLine(repo: Repo, line: string): string[] {
  const problems: string[] = [];
  for (const command of commandsOf(line)) {
    const w = words(command).filter((x) => !/^[A-Z_][A-Z0-9_]*=/.test(x)); // VAR=value prefixes
    const run = w[0] === "npm" && w[1] === "run" ? w.slice(2).filter((x) => !x.startsWith("-") || x === "--") : [];
    if (run[0] && !/[…<]/.test(run[0])) {
      const script = run[0];
      if (!repo.scripts.has(script)) problems.push(`\`npm run ${script}\`: package.json has no script "${script}"`);
      else if (script === "bench") {
        const name = run[1] === "--" ? w[w.indexOf("--") + 1] : undefined;
        if (name && !name.startsWith("<") && !repo.benches.has(name)) problems.push(`\`npm run bench -- ${name}\`: test/bench has no bench "${name}"`);
      }
    } else if (w[0] === "meshplane" && w.length > 1) {
      problems.push(...checkCliCommand(repo.cli, w.slice(1)));
    }
  }
  return problems;
}

// ---- links and paths -----------------------------------------------------------------------------

const anchorsCache = new Map<string, Set<string>>();
function anchorsOf(path: string): Set<string> {
  let ids = anchorsCache.get(path);
  if (!ids) {
    ids = headingIds(readFileSync(path, "utf8"));
    anchorsCache.set(path, ids);
  }
  return ids;
}

/** Problems with one link target written in `file`, whose own headings are `own`. */
export function checkLink(root: string, file: string, target: string, own: ReadonlySet<string>): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined; // https:, mailto:, …
  const [pathPart, anchor] = target.split("#", 2) as [string, string | undefined];
  if (pathPart === "") return anchor === undefined || own.has(anchor.toLowerCase()) ? undefined : `link ${target}: ${file} has no heading #${anchor}`;
  const path = resolve(root, dirname(file), decodeURIComponent(pathPart));
  if (!existsSync(path)) return `link ${target}: ${relative(root, path)} does not exist`;
  if (anchor !== undefined && path.endsWith(".md") && statSync(path).isFile() && !anchorsOf(path).has(anchor.toLowerCase())) {
    return `link ${target}: ${relative(root, path)} has no heading #${anchor}`;
  }
  return undefined;
}

const REPO_PATH = /^(?:functions|packages|infra|test|scripts|docs)\/[\w./@-]*$/;

/** A code span that names a path of the repository which does not exist. */
export function checkPathSpan(root: string, span: string): string | undefined {
  // Build outputs (dist/, cdk.out) exist only after a build.
  if (!REPO_PATH.test(span) || /[*…<]|\/dist(?:\/|$)|cdk\.out/.test(span)) return undefined;
  return existsSync(join(root, span.replace(/\/$/, ""))) ? undefined : `\`${span}\` does not exist`;
}

// ---- figures -------------------------------------------------------------------------------------

const NUMBER = String.raw`\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?`;
const UNIT = String.raw`(?:\s(?:ms|µs|s|min|minutes?|seconds?|hours?|KiB|MiB|GiB|KB|MB|GB|mCPU)|\s?%)`;
const FIGURE = new RegExp(String.raw`(?<![\w.$,])(?:\$(?:${NUMBER})|(?:${NUMBER})(?:\s?[–-]\s?(?:${NUMBER}))?${UNIT})(?![\w])`, "g");
/**
 * Words before a figure that make it a setting or a limit; or a setting's name (a code span that is
 * not a path) just before it: `interval` 10 s, `--timeout` (300 s).
 */
const SETTING_BEFORE =
  /(?:\b(?:every|default|defaults to|at most|up to|over|after|before|older than|idle for|capped at|TTL of|limit of|limited to)\s+|\[0,\s*|\bmin\(|_`[^.;`]{0,10})$/i;
/** Words after a figure that make it a setting or a limit, or a setting's name just after it. */
const SETTING_AFTER = /^(?:\s*\)?\s*by default|\s*[\w-]*\s?limit|\s*lease|\s*apart|\s*TTL|\s*timeout|\s*doubling|\s*×|[^.;`]{0,10}`_)/i;
/** `$1.00/million`, `$0.25 per million`, `$1.00 for the HTTP API`. */
const PRICE_AFTER = /^\s*(?:\/|per\b|for\b)/;
/** Table columns whose values are settings. */
const SETTING_COLUMN = /\b(?:window|limit|default|TTL|timeout|price)s?\b/i;

/** The figures of a paragraph or table row, with where they start (code spans and link targets are not figures). */
export function figuresOf(text: string, settingColumns: ReadonlySet<number> = new Set()): { figure: string; index: number }[] {
  const isRow = text.trimStart().startsWith("|");
  const cells = isRow ? text.split("|") : [text];
  const out: { figure: string; index: number }[] = [];
  let offset = 0;
  cells.forEach((cell, i) => {
    const cellStart = offset;
    offset += cell.length + 1;
    if (isRow && settingColumns.has(i)) return;
    // Same-length stand-ins: a code span as `___` when it is a setting's name or flag (`interval`,
    // `--timeout`, `sync.push`), else as `///` (a path or a command, which names no setting); a
    // link's target as blanks.
    const prose = cell
      .replace(
        /(`+)([^`]*)\1/g,
        (m, ticks: string, span: string) => `${ticks}${(/^-{0,2}[\w.$]+(?:=\S*)?$/.test(span) ? "_" : "/").repeat(span.length)}${ticks}`,
      )
      .replace(/\]\([^)]*\)/g, (m) => `]${" ".repeat(m.length - 1)}`);
    for (const m of prose.matchAll(FIGURE)) {
      const before = prose.slice(Math.max(0, m.index - 24), m.index);
      const after = prose.slice(m.index + m[0].length, m.index + m[0].length + 16);
      if (SETTING_BEFORE.test(before) || SETTING_AFTER.test(after)) continue;
      if (/\bfrom\s+$/.test(before) && /^\s*to\b/.test(after)) continue; // a range of accepted values
      if (m[0].startsWith("$") && PRICE_AFTER.test(after)) continue;
      out.push({ figure: m[0], index: cellStart + m.index });
    }
  });
  return out;
}

/** Whether a section's text names a bench. */
function namesBench(repo: Repo, text: string): boolean {
  for (const m of text.matchAll(/npm run bench -- ([\w-]+)/g)) if (repo.benches.has(m[1] as string)) return true;
  return spans(text).some((s) => repo.benches.has(s.trim()));
}

// ---- the check -----------------------------------------------------------------------------------

/** Every problem in one markdown text, `file` relative to the repository's root. */
export function checkMarkdown(repo: Repo, file: string, markdown: string): Problem[] {
  const problems: Problem[] = [];
  const add = (line: number, message: string) => problems.push({ file, line, message });
  const all = lines(markdown);
  const own = headingIds(markdown);

  // Commands: shell code blocks (and untagged ones) line by line, code spans in prose.
  for (const l of all) {
    if (l.code) {
      if (l.lang !== undefined && /^(?:sh|bash|shell|console)$/.test(l.lang)) {
        for (const p of checkShellLine(repo, l.text.replace(/^\s*\$\s+/, ""))) add(l.number, p);
      }
      continue;
    }
    for (const span of spans(l.text)) {
      for (const p of checkShellLine(repo, span)) add(l.number, p);
      const path = checkPathSpan(repo.root, span);
      if (path) add(l.number, path);
    }
    for (const m of l.text.replace(/`+[^`]*`+/g, "``").matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const p = checkLink(repo.root, file, m[1] as string, own);
      if (p) add(l.number, p);
    }
  }

  // Figures, section by section.
  // A section runs from its heading to the next; the headings above it (of a lower level) count too.
  const sections: { lines: Line[]; above: string[] }[] = [{ lines: [], above: [] }];
  const open: { level: number; text: string }[] = [];
  for (const l of all) {
    const h = l.code ? null : /^(#{1,6})\s/.exec(l.text);
    if (h?.[1]) {
      while (open.length > 0 && (open[open.length - 1] as { level: number }).level >= h[1].length) open.pop();
      sections.push({ lines: [], above: open.map((o) => o.text) });
      open.push({ level: h[1].length, text: l.text });
    }
    (sections[sections.length - 1] as { lines: Line[] }).lines.push(l);
  }
  for (const section of sections) {
    const prose = section.lines.filter((l) => !l.code);
    if (namesBench(repo, [...section.above, ...prose.map((l) => l.text)].join("\n"))) continue;
    // Table rows one by one (a header row says which columns hold settings); other prose joined
    // into paragraphs and list items, so a figure broken across lines is still one.
    let settingColumns = new Set<number>();
    let paragraph: Line[] = [];
    const flush = () => {
      if (paragraph.length === 0) return;
      let text = "";
      const starts: number[] = [];
      for (const l of paragraph) {
        starts.push(text.length);
        text += `${l.text.trim()} `;
      }
      for (const { figure, index } of figuresOf(text)) {
        let at = 0;
        while (at + 1 < starts.length && (starts[at + 1] as number) <= index) at++;
        add((paragraph[at] as Line).number, `figure "${figure}" names no bench in its section (npm run bench -- <name>)`);
      }
      paragraph = [];
    };
    prose.forEach((l, i) => {
      const text = l.text;
      if (text.trimStart().startsWith("|")) {
        flush();
        const nextLine = prose[i + 1]?.text ?? "";
        // A header row (the next row is the |---| rule) says which columns hold settings.
        if (/^\s*\|[\s|:-]+\|\s*$/.test(nextLine)) {
          settingColumns = new Set(text.split("|").flatMap((h, j) => (SETTING_COLUMN.test(h) ? [j] : [])));
          return;
        }
        for (const { figure } of figuresOf(text, settingColumns)) add(l.number, `figure "${figure}" names no bench in its section (npm run bench -- <name>)`);
        return;
      }
      settingColumns = new Set();
      if (text.trim() === "" || /^#{1,6}\s/.test(text) || /^\s*(?:[-*+]|\d+\.)\s/.test(text)) flush();
      if (text.trim() !== "") paragraph.push(l);
    });
    flush();
  }
  return problems;
}

/** Every problem in README.md and docs/*.md. */
export function checkDocs(repo: Repo): Problem[] {
  return docFiles(repo.root).flatMap((file) => checkMarkdown(repo, file, readFileSync(join(repo.root, file), "utf8")));
}
