import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Argument, Command, Option } from "commander";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { completionScript, type Shell } from "./completion";
import { program } from "./program";

const KIND_WORDS = ["virtualmeshes", "vm", "trafficpolicies", "tp", "accesspolicies", "ap", "meshes", "workloads", "wl", "destinations", "dest", "clusters"];
const FORMATS = ["table", "wide", "yaml", "json", "name"];

const installed = (shell: string) => spawnSync("sh", ["-c", `command -v ${shell}`]).status === 0;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "meshplane-completion-"));
  // Files for -f to complete, in a working directory of their own.
  mkdirSync(join(dir, "cwd", "policies"), { recursive: true });
  writeFileSync(join(dir, "cwd", "mesh.yaml"), "");
  writeFileSync(join(dir, "cwd", "tp.yaml"), "");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function scriptFile(shell: Shell, cli: Command): string {
  const file = join(dir, `${cli.name()}.${shell}`);
  writeFileSync(file, completionScript(shell, cli));
  return file;
}

/**
 * COMPREPLY from bash for a command line as bash splits it (`=` is a word of its own); the last
 * word is the one being completed. Sorted: compgen -f lists files in directory order.
 */
function complete(line: readonly string[], cli: Command = program()): string[] {
  const driver = [
    'source "$1" || exit 3',
    "shift",
    'COMP_WORDS=("$@")',
    "COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))",
    'COMP_LINE="${COMP_WORDS[*]}"',
    "COMP_POINT=${#COMP_LINE}",
    `_${cli.name().replace(/[^A-Za-z0-9_]/g, "_")} || exit 4`,
    'printf "%s\\n" "${COMPREPLY[@]}"',
  ].join("\n");
  const out = execFileSync("bash", ["--norc", "--noprofile", "-c", driver, "bash", scriptFile("bash", cli), ...line], {
    cwd: join(dir, "cwd"),
    encoding: "utf8",
  });
  return out
    .split("\n")
    .filter((w) => w !== "")
    .sort();
}

const sorted = (words: readonly string[]) => [...words].sort();
const words = (line: string) => line.split(" ");

describe("bash", () => {
  it("registers _meshplane for meshplane and defines it without errors", () => {
    const out = execFileSync(
      "bash",
      ["--norc", "--noprofile", "-c", 'source "$1" && complete -p meshplane && declare -F _meshplane', "bash", scriptFile("bash", program())],
      { encoding: "utf8" },
    );
    expect(out).toBe("complete -F _meshplane meshplane\n_meshplane\n");
  });

  it.each([
    ["meshplane clu", ["cluster"]],
    ["meshplane t", ["tenant", "token", "top"]],
    ["meshplane cluster ", ["bootstrap-token", "deregister", "describe", "grant", "list", "register"]],
    ["meshplane cluster d", ["deregister", "describe"]],
    ["meshplane context ", ["delete", "list", "use"]],
    ["meshplane import ", ["gloo"]],
    ["meshplane token ", ["create", "list", "revoke"]],
  ])("completes subcommands: %j", (line, expected) => {
    expect(complete(words(line))).toEqual(expected);
  });

  it("completes every top-level command, as the tree declares them", () => {
    const names = program().commands.map((c) => c.name());
    expect(names).toEqual(expect.arrayContaining(["login", "context", "get", "apply", "delete", "cluster", "token", "tenant", "import"]));
    expect(complete(["meshplane", ""])).toEqual(sorted(names));
  });

  it.each([
    ["meshplane get ", KIND_WORDS],
    ["meshplane get t", ["tp", "trafficpolicies"]],
    ["meshplane get d", ["dest", "destinations"]],
    ["meshplane --context prod get ", KIND_WORDS],
    ["meshplane get -o json ", KIND_WORDS],
    ["meshplane delete ", ["virtualmeshes", "vm", "trafficpolicies", "tp", "accesspolicies", "ap"]],
  ])("completes the kinds of get and delete: %j", (line, expected) => {
    expect(complete(words(line))).toEqual(sorted(expected));
  });

  it.each([
    [
      "meshplane diff -",
      ["-f", "--filename", "-R", "--recursive", "--prune", "-l", "--selector", "--prune-allowlist", "-h", "--help", "-v", "--version", "--context"],
    ],
    ["meshplane diff -f ", ["mesh.yaml", "policies", "tp.yaml"]],
    ["meshplane apply -f policies --prune -l team=shop --p", ["--prune", "--prune-allowlist"]],
    ["meshplane apply --prune-allowlist ", ["virtualmeshes", "vm", "trafficpolicies", "tp", "accesspolicies", "ap"]],
    ["meshplane diff --prune-allowlist tp a", ["accesspolicies", "ap"]],
  ])("completes diff and the --prune options: %j", (line, expected) => {
    expect(complete(words(line))).toEqual(sorted(expected));
  });

  it("completes nothing for a resource's name: it never asks the control plane", () => {
    expect(complete(words("meshplane get tp "))).toEqual([]);
    expect(complete(words("meshplane cluster describe "))).toEqual([]);
    expect(complete(words("meshplane login --url "))).toEqual([]);
  });

  it.each([
    ["meshplane get tp -o ", FORMATS],
    ["meshplane get tp --output ", FORMATS],
    ["meshplane get tp -o j", ["json"]],
    ["meshplane get -o w", ["wide"]],
    ["meshplane cluster list -o ", FORMATS],
    ["meshplane cluster register c1 -o ", ["text", "json"]],
    ["meshplane cluster describe c1 -o ", ["text", "yaml", "json"]],
    ["meshplane cluster grant c1 -o ", ["text", "yaml", "json"]],
    ["meshplane apply -o ", ["table", "json"]],
    ["meshplane token create x --role ", ["admin", "editor", "viewer"]],
    ["meshplane token create x --role e", ["editor"]],
    ["meshplane token create x --ttl-days 30 --role ", ["admin", "editor", "viewer"]],
  ])("completes option values from their choices: %j", (line, expected) => {
    expect(complete(words(line))).toEqual(sorted(expected));
  });

  it.each([
    ["meshplane top ", ["destinations", "dest", "edges", "edge"]],
    ["meshplane top e", ["edges", "edge"]],
    ["meshplane top dest --sort ", ["rate", "errors", "p99", "name"]],
    ["meshplane top edges -o ", ["table", "wide", "yaml", "json"]],
    ["meshplane top edges --window ", ["5m", "15m", "1h", "6h", "24h"]],
    ["meshplane top edges --window 1", ["15m", "1h"]],
    ["meshplane describe dest reviews --window ", ["5m", "15m", "1h", "6h", "24h"]],
    ["meshplane top destinations --s", ["--sort"]],
  ])("completes top's subcommands, options and usual windows: %j", (line, expected) => {
    expect(complete(words(line))).toEqual(sorted(expected));
  });

  it("completes --option=value, which bash splits at =", () => {
    expect(complete(["meshplane", "get", "tp", "--output", "=", "y"])).toEqual(["yaml"]);
    expect(complete(["meshplane", "get", "tp", "--output", "=", "json", ""])).toEqual([]);
    expect(complete(["meshplane", "get", "--output", "=", "json", "t"])).toEqual(["tp", "trafficpolicies"]);
  });

  it("completes a command's options with the global ones", () => {
    expect(complete(words("meshplane get tp --c"))).toEqual(["--cluster", "--context"]);
    expect(complete(words("meshplane cluster list --"))).toEqual(sorted(["--output", "--help", "--version", "--context"]));
    expect(complete(words("meshplane token create x -"))).toEqual(
      sorted(["--role", "--ttl-days", "-o", "--output", "-h", "--help", "-v", "--version", "--context"]),
    );
    expect(complete(words("meshplane --c"))).toEqual(["--context"]);
    expect(complete(words("meshplane cluster --"))).toEqual(sorted(["--help", "--version", "--context"]));
  });

  it("skips the values of options when finding the subcommand", () => {
    // "cluster" here is --context's value, not the cluster command.
    expect(complete(words("meshplane --context cluster "))).toEqual(sorted(program().commands.map((c) => c.name())));
    expect(complete(words("meshplane --context prod cluster "))).toEqual(["bootstrap-token", "deregister", "describe", "grant", "list", "register"]);
    // After a kind, a word is an argument, not a subcommand.
    expect(complete(words("meshplane get cluster -o "))).toEqual(sorted(FORMATS));
  });

  it("completes file names for -f/--filename, for every value of the repeatable option", () => {
    const files = ["mesh.yaml", "policies", "tp.yaml"];
    expect(complete(words("meshplane apply -f "))).toEqual(files);
    expect(complete(words("meshplane apply --filename m"))).toEqual(["mesh.yaml"]);
    expect(complete(words("meshplane apply -f mesh.yaml "))).toEqual(files);
    expect(complete(words("meshplane delete -R -f p"))).toEqual(["policies"]);
    expect(complete(words("meshplane import gloo -f "))).toEqual(files);
    // An option ends the list of files.
    expect(complete(words("meshplane apply -f mesh.yaml --d"))).toEqual(["--dry-run"]);
    expect(complete(words("meshplane apply -f mesh.yaml --dry-run "))).toEqual([]);
  });

  it("reads a tree it has not seen: aliases, hidden commands and options, argument choices, variadic arguments", () => {
    const cli = new Command("demo-cli").option("-q, --quiet", "say less");
    cli
      .command("deploy")
      .alias("d")
      .description("Deploy")
      .addArgument(new Argument("<env>", "where").choices(["dev", "prod"]))
      .addOption(new Option("--mode <mode>").choices(["fast", "safe"]));
    cli.command("secret", { hidden: true });
    cli
      .command("tag")
      .addArgument(new Argument("<name>"))
      .addArgument(new Argument("[colors...]").choices(["red", "blue"]))
      .addOption(new Option("--internal").hideHelp());
    expect(complete(["demo-cli", ""], cli)).toEqual(["d", "deploy", "tag"]);
    expect(complete(["demo-cli", "d", ""], cli)).toEqual(["dev", "prod"]);
    expect(complete(["demo-cli", "deploy", "prod", "--mode", ""], cli)).toEqual(["fast", "safe"]);
    expect(complete(["demo-cli", "deploy", "--"], cli)).toEqual(["--help", "--mode", "--quiet"]);
    expect(complete(["demo-cli", "tag", ""], cli)).toEqual([]);
    expect(complete(["demo-cli", "tag", "v1", "r"], cli)).toEqual(["red"]);
    expect(complete(["demo-cli", "tag", "v1", "red", "b"], cli)).toEqual(["blue"]);
    expect(complete(["demo-cli", "tag", "--"], cli)).toEqual(["--help", "--quiet"]);
  });

  it("refuses a word it could not hold unquoted", () => {
    const cli = new Command("demo");
    cli.command("run").addOption(new Option("--to <x>").choices(["a b"]));
    expect(() => completionScript("bash", cli)).toThrow(/not a plain word/);
  });
});

describe.each(["bash", "zsh", "fish"] as const)("%s script", (shell) => {
  it("is the same every time", () => {
    expect(completionScript(shell, program())).toBe(completionScript(shell, program()));
  });

  it("has no trailing spaces and ends with one newline", () => {
    const script = completionScript(shell, program());
    expect(script.split("\n").filter((l) => / +$/.test(l))).toEqual([]);
    expect(script.endsWith("\n") && !script.endsWith("\n\n")).toBe(true);
  });
});

const zshScript = () => completionScript("zsh", program());
const fishScript = () => completionScript("fish", program());

describe("zsh", () => {
  it("is a #compdef function that registers itself when sourced", () => {
    const lines = zshScript().split("\n");
    expect(lines[0]).toBe("#compdef meshplane");
    expect(lines).toContain("_meshplane() {");
    expect(lines).toContain("  compdef _meshplane meshplane");
  });

  it("holds subcommands, options and values with their descriptions", () => {
    const text = zshScript();
    expect(text).toContain("    ('meshplane cluster|bootstrap-token') REPLY='meshplane cluster bootstrap-token' ;;");
    expect(text).toContain("    ('meshplane get|-o'|'meshplane get|--output') values=('table' 'wide' 'yaml' 'json' 'name') ;;");
    expect(text).toContain("    ('meshplane token create|--role') values=('admin' 'editor' 'viewer') ;;");
    expect(text).toContain("'tp:TrafficPolicy'");
    expect(text).toContain("    ('meshplane apply|-f'|'meshplane apply|--filename') _files; return ;;");
    expect(text).toContain("        '--context:the context to use (default: the current one; MESHPLANE_CONTEXT)'");
    expect(text).toContain(
      "        'register:Register a cluster: prints the helm line that installs its agent with a one-time bootstrap token, or with --install runs it and waits for the agent'",
    );
  });

  it.runIf(installed("zsh"))("parses (zsh -n)", () => {
    const result = spawnSync("zsh", ["-n", scriptFile("zsh", program())], { encoding: "utf8" });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
  });
});

describe("fish", () => {
  it("has complete lines for subcommands, options, choices, kinds and files", () => {
    const lines = fishScript().split("\n");
    expect(lines).toContain("complete -c meshplane -f");
    expect(lines).toContain("complete -c meshplane -s h -l help -d 'display help for command'");
    expect(lines).toContain("complete -c meshplane -l context -x -d 'the context to use (default: the current one; MESHPLANE_CONTEXT)'");
    expect(lines).toContain("complete -c meshplane -n '__meshplane_is \"meshplane\" 0' -a cluster -d 'Register clusters and see their agents'");
    expect(lines).toContain(
      "complete -c meshplane -n '__meshplane_is \"meshplane cluster\" 0' -a bootstrap-token -d 'A new one-time bootstrap token for a cluster whose agent must register again; with --install, reinstalls the agent with it'",
    );
    expect(lines).toContain(
      "complete -c meshplane -n '__meshplane_is \"meshplane get\"' -s o -l output -x -a 'table wide yaml json name' -d 'table, wide, yaml, json or name'",
    );
    expect(lines).toContain(
      "complete -c meshplane -n '__meshplane_is \"meshplane token create\"' -l role -x -a 'admin editor viewer' -d 'admin, editor or viewer'",
    );
    expect(lines).toContain("complete -c meshplane -n '__meshplane_is \"meshplane get\" 0' -a tp -d 'TrafficPolicy'");
    expect(lines).toContain(
      "complete -c meshplane -n '__meshplane_is \"meshplane apply\"' -s f -l filename -r -F -d 'a file, a directory, or - for standard input'",
    );
    expect(lines).toContain("complete -c meshplane -n '__meshplane_more \"meshplane apply\" -f --filename' -F");
    expect(lines).toContain(
      "complete -c meshplane -n '__meshplane_is \"meshplane cluster register\"' -s o -l output -x -a 'text json' -d 'text or json (without --install)'",
    );
  });

  it("escapes quotes in descriptions the fish way", () => {
    expect(fishScript()).toContain("-l name -x -d 'the context\\'s name (default: the URL\\'s host)'");
  });

  it.runIf(installed("fish"))("parses (fish -n)", () => {
    const result = spawnSync("fish", ["-n", scriptFile("fish", program())], { encoding: "utf8" });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
  });
});
