/**
 * `meshplane completion <shell>`: static completion scripts for bash, zsh and fish, generated from
 * the commander tree. They complete subcommands at every level, each command's options (with the
 * options of the commands above it, such as `--context`), the values of options with choices, the
 * usual windows of `--window`, file names for `-f/--filename`, and the kinds `get`, `delete` and `--prune-allowlist` take. They never run meshplane.
 */
import type { Argument, Command, Option } from "commander";
import { KINDS, type Kind } from "./kinds";

export type Shell = "bash" | "zsh" | "fish";
export const SHELLS: readonly Shell[] = ["bash", "zsh", "fish"];

/** A word the shell offers; zsh and fish show its description. */
export interface Word {
  value: string;
  description: string;
}

/** What completes a value: nothing (free text), file names, or a fixed list of words. */
type Values = { type: "none" } | { type: "files" } | { type: "words"; words: Word[] };

interface Flag {
  /** `-o`, `--output`, … */
  names: string[];
  short?: string;
  long?: string;
  description: string;
  takesValue: boolean;
  /** Commander keeps reading values until the next option (`-f a.yaml b.yaml`). */
  variadic: boolean;
  values: Values;
}

interface Node {
  /** The words that reach it: `meshplane cluster register`. */
  path: string;
  description: string;
  subcommands: { names: string[]; description: string; path: string }[];
  /** Its own options, without the help option. */
  own: Flag[];
  /** Its help option (`-h, --help`), unless hidden. */
  help?: Flag;
  /** Its own, the help option, and those of the commands above it that it does not redefine. */
  flags: Flag[];
  /** What completes each positional argument; `variadicFrom` repeats the last. */
  args: Values[];
  variadicFrom?: number;
}

/** The names of kinds users type: each plural and its short forms (not the bare singular). */
export function kindWords(kinds: readonly Kind[]): Word[] {
  return kinds.flatMap((k) => [k.plural, ...k.short.filter((s) => s !== k.kind.toLowerCase())].map((value) => ({ value, description: k.kind })));
}

/** Values of positional arguments that commander does not know, by command (without the program's name) and argument name. */
export const ARGUMENT_VALUES: Readonly<Record<string, readonly Word[]>> = {
  "get kind": kindWords(KINDS),
  "delete kind": kindWords(KINDS.filter((k) => k.user)),
};

/** Usual values of options that take any value of a form (`--window 2h` is fine too), by long name: offered, never enforced. */
export const OPTION_VALUES: Readonly<Record<string, readonly Word[]>> = {
  "--window": ["5m", "15m", "1h", "6h", "24h"].map((value) => ({ value, description: "" })),
  "--prune-allowlist": kindWords(KINDS.filter((k) => k.user)),
};

const SAFE = /^[\w.:@+,=/-]+$/;

/** A name or value that the scripts hold unquoted; anything else is a mistake in the tree. */
function safe(word: string): string {
  if (!SAFE.test(word)) throw new Error(`completion: ${JSON.stringify(word)} is not a plain word`);
  return word;
}

const oneLine = (text: string) => text.replace(/\s+/g, " ").trim();

function optionValues(option: Option): Values {
  if (option.argChoices !== undefined) return { type: "words", words: option.argChoices.map((value) => ({ value: safe(value), description: "" })) };
  const usual = option.long === undefined ? undefined : OPTION_VALUES[option.long];
  if (usual !== undefined) return { type: "words", words: usual.map((w) => ({ value: safe(w.value), description: w.description })) };
  if (option.long === "--filename" || /[<[](path|file|filename)(\.\.\.)?[>\]]/.test(option.flags)) return { type: "files" };
  return { type: "none" };
}

function flagOf(option: Option): Flag {
  const names = [option.short, option.long].filter((n): n is string => n !== undefined).map(safe);
  return {
    names,
    ...(option.short === undefined ? {} : { short: option.short }),
    ...(option.long === undefined ? {} : { long: option.long }),
    description: oneLine(option.description ?? ""),
    takesValue: option.required || option.optional,
    variadic: option.variadic,
    values: optionValues(option),
  };
}

function valuesOfArgument(path: string, argument: Argument, known: Readonly<Record<string, readonly Word[]>>): Values {
  if (argument.argChoices !== undefined) return { type: "words", words: argument.argChoices.map((value) => ({ value: safe(value), description: "" })) };
  const words = known[`${path} ${argument.name()}`];
  return words === undefined ? { type: "none" } : { type: "words", words: words.map((w) => ({ value: safe(w.value), description: oneLine(w.description) })) };
}

/** Every command of the tree, depth first in the order they were declared. */
function describeTree(cli: Command, known: Readonly<Record<string, readonly Word[]>>): Node[] {
  const nodes: Node[] = [];
  const visit = (command: Command, words: string[], inherited: Flag[]) => {
    const path = words.join(" ");
    const help = command.createHelp();
    const visible = help.visibleOptions(command);
    const own = visible.filter((o) => command.options.includes(o)).map(flagOf);
    // Commander adds the help option to the visible ones; it is not among the command's options.
    const helpOption = visible.find((o) => !command.options.includes(o));
    const helpFlag = helpOption === undefined ? undefined : flagOf(helpOption);
    const mine = helpFlag === undefined ? own : [...own, helpFlag];
    const taken = new Set(mine.flatMap((f) => f.names));
    const flags = [...mine, ...inherited.filter((f) => !f.names.some((n) => taken.has(n)))];
    const children = help.visibleCommands(command).filter((c) => command.commands.includes(c));
    const withoutRoot = words.slice(1).join(" ");
    const args = command.registeredArguments.map((a) => valuesOfArgument(withoutRoot, a, known));
    const last = command.registeredArguments.at(-1);
    nodes.push({
      path,
      description: oneLine(command.description()),
      subcommands: children.map((c) => ({ names: [c.name(), ...c.aliases()].map(safe), description: oneLine(c.description()), path: `${path} ${c.name()}` })),
      own,
      ...(helpFlag === undefined ? {} : { help: helpFlag }),
      flags,
      args,
      ...(last?.variadic ? { variadicFrom: args.length - 1 } : {}),
    });
    // What the children inherit: this command's options without its help option (each has its own).
    const passed = [...own, ...inherited.filter((f) => !f.names.some((n) => taken.has(n)))];
    for (const child of children) visit(child, [...words, safe(child.name())], passed);
  };
  visit(cli, [safe(cli.name())], []);
  return nodes;
}

/** The completion script for `shell`, for the program `cli`; `argumentValues` completes positional arguments by "command argument". */
export function completionScript(shell: Shell, cli: Command, argumentValues: Readonly<Record<string, readonly Word[]>> = ARGUMENT_VALUES): string {
  const nodes = describeTree(cli, argumentValues);
  switch (shell) {
    case "bash":
      return bash(nodes);
    case "zsh":
      return zsh(nodes);
    case "fish":
      return fish(nodes);
    default:
      throw new Error(`completion: no such shell ${JSON.stringify(shell)} (bash, zsh or fish)`);
  }
}

/** A shell function name from the program's name: `meshplane` → `meshplane`. */
const ident = (name: string) => name.replace(/[^A-Za-z0-9_]/g, "_");

const words = (values: readonly Word[]) => values.map((w) => w.value).join(" ");

/** Case patterns for an option's names under one command: `"meshplane get|-o"|"meshplane get|--output"`. */
const patterns = (path: string, keys: readonly string[], quote: (s: string) => string) => keys.map((k) => quote(`${path}|${k}`)).join("|");

/** Every value that completes under `node`: options with values, then arguments, each with its case keys. */
function valueCases(node: Node): { keys: string[]; values: Values }[] {
  const cases: { keys: string[]; values: Values }[] = [];
  for (const flag of node.flags) if (flag.takesValue && flag.values.type !== "none") cases.push({ keys: flag.names, values: flag.values });
  node.args.forEach((values, i) => {
    if (values.type !== "none") cases.push({ keys: [`#${i}`], values });
  });
  return cases;
}

/** A bash double-quoted string, of plain words only. */
const dq = (s: string) => `"${s}"`;

function bash(nodes: Node[]): string {
  const root = nodes[0]!.path;
  const fn = ident(root);
  const out: string[] = [];
  const line = (text = "") => out.push(text);

  line(`# bash completion for ${root}                                  -*- shell-script -*-`);
  line(`# Generated from the command tree by \`${root} completion bash\`; regenerate it rather than edit it.`);
  line(`#   ${root} completion bash > /etc/bash_completion.d/${root}    or, in ~/.bashrc:  source <(${root} completion bash)`);
  line();
  line(`# The subcommands and options of command $1 (its words), in commands, options, value_options,`);
  line(`# variadic_options and variadic_arg (the argument that repeats, -1 when none).`);
  line(`__${fn}_command() {`);
  line(`  commands="" options="" value_options="" variadic_options="" variadic_arg=-1`);
  line(`  case "$1" in`);
  for (const node of nodes) {
    line(`    ${dq(node.path)})`);
    const subcommands = node.subcommands.flatMap((s) => s.names);
    if (subcommands.length > 0) line(`      commands="${subcommands.join(" ")}"`);
    line(`      options="${node.flags.flatMap((f) => f.names).join(" ")}"`);
    const valued = node.flags.filter((f) => f.takesValue).flatMap((f) => f.names);
    if (valued.length > 0) line(`      value_options="${valued.join(" ")}"`);
    const variadic = node.flags.filter((f) => f.takesValue && f.variadic).flatMap((f) => f.names);
    if (variadic.length > 0) line(`      variadic_options="${variadic.join(" ")}"`);
    if (node.variadicFrom !== undefined) line(`      variadic_arg=${node.variadicFrom}`);
    line(`      ;;`);
  }
  line(`  esac`);
  line(`}`);
  line();
  line(`# The command that word $2 names under command $1, in REPLY (empty when it names none).`);
  line(`__${fn}_subcommand() {`);
  line(`  case "$1|$2" in`);
  for (const node of nodes) for (const sub of node.subcommands) line(`    ${patterns(node.path, sub.names, dq)}) REPLY=${dq(sub.path)} ;;`);
  line(`    *) REPLY="" ;;`);
  line(`  esac`);
  line(`}`);
  line();
  line(`# COMPREPLY for the value of option $2 of command $1, or of its argument number $2 ("#0" is the first).`);
  line(`__${fn}_values() {`);
  line(`  case "$1|$2" in`);
  for (const node of nodes) {
    for (const { keys, values } of valueCases(node)) {
      const action = values.type === "files" ? `__${fn}_files` : values.type === "words" ? `COMPREPLY=($(compgen -W "${words(values.words)}" -- "$cur"))` : ":";
      line(`    ${patterns(node.path, keys, dq)}) ${action} ;;`);
    }
  }
  line(`  esac`);
  line(`}`);
  line();
  line(`__${fn}_files() {`);
  line(`  compopt -o filenames 2>/dev/null`);
  line(`  local IFS=$'\\n'`);
  line(`  COMPREPLY=($(compgen -f -- "$cur"))`);
  line(`}`);
  line();
  line(`_${fn}() {`);
  line(`  local cur="\${COMP_WORDS[COMP_CWORD]}" cmd=${dq(root)} word pending="" variadic="" dashdash=0 REPLY`);
  line(`  local commands options value_options variadic_options variadic_arg`);
  line(`  local -i i npos=0`);
  line(`  COMPREPLY=()`);
  line(`  __${fn}_command "$cmd"`);
  line(`  # Walk the words before the cursor: options and their values, subcommands, arguments.`);
  line(`  for (( i = 1; i < COMP_CWORD; i++ )); do`);
  line(`    word="\${COMP_WORDS[i]}"`);
  line(`    if [[ -n $pending ]]; then`);
  line(`      # bash splits --output=json into --output, = and json.`);
  line(`      [[ $word == "=" ]] && continue`);
  line(`      [[ " $variadic_options " == *" $pending "* ]] && variadic="$pending"`);
  line(`      pending=""`);
  line(`    elif (( dashdash == 0 )) && [[ $word == "--" ]]; then`);
  line(`      dashdash=1 variadic=""`);
  line(`    elif (( dashdash == 0 )) && [[ $word == -?* ]]; then`);
  line(`      variadic=""`);
  line(`      [[ " $value_options " == *" $word "* ]] && pending="$word"`);
  line(`    elif [[ -n $variadic ]]; then`);
  line(`      :`);
  line(`    else`);
  line(`      REPLY=""`);
  line(`      (( npos == 0 )) && __${fn}_subcommand "$cmd" "$word"`);
  line(`      if [[ -n $REPLY ]]; then`);
  line(`        cmd="$REPLY"`);
  line(`        __${fn}_command "$cmd"`);
  line(`      else`);
  line(`        npos+=1`);
  line(`      fi`);
  line(`    fi`);
  line(`  done`);
  line(`  if [[ -n $pending ]]; then`);
  line(`    [[ $cur == "=" ]] && cur=""`);
  line(`    __${fn}_values "$cmd" "$pending"`);
  line(`  elif (( dashdash == 0 )) && [[ $cur == -* ]]; then`);
  line(`    COMPREPLY=($(compgen -W "$options" -- "$cur"))`);
  line(`  elif [[ -n $variadic ]]; then`);
  line(`    __${fn}_values "$cmd" "$variadic"`);
  line(`  elif (( npos == 0 )) && [[ -n $commands ]]; then`);
  line(`    COMPREPLY=($(compgen -W "$commands" -- "$cur"))`);
  line(`  else`);
  line(`    (( variadic_arg >= 0 && npos > variadic_arg )) && npos=variadic_arg`);
  line(`    __${fn}_values "$cmd" "#$npos"`);
  line(`  fi`);
  line(`  return 0`);
  line(`}`);
  line();
  line(`complete -F _${fn} ${root}`);
  return `${out.join("\n")}\n`;
}

/** A zsh (and fish) single-quoted string. */
const sq = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

/** A zsh `_describe` entry: `name:description`, colons in the name escaped. */
const described = (w: Word) => sq(w.description === "" ? w.value.replaceAll(":", "\\:") : `${w.value.replaceAll(":", "\\:")}:${w.description}`);

function zsh(nodes: Node[]): string {
  const root = nodes[0]!.path;
  const fn = ident(root);
  const out: string[] = [];
  const line = (text = "") => out.push(text);
  const array = (indent: string, name: string, entries: string[]) => {
    if (entries.length === 0) return;
    line(`${indent}${name}=(`);
    for (const e of entries) line(`${indent}  ${e}`);
    line(`${indent})`);
  };

  line(`#compdef ${root}`);
  line(`# zsh completion for ${root}, generated from the command tree by \`${root} completion zsh\`; regenerate it rather than edit it.`);
  line(`#   source <(${root} completion zsh)    (after compinit), or save it as _${root} in a directory of $fpath`);
  line();
  line(`# The subcommands and options of command $1 (its words), in commands and options (name:description),`);
  line(`# value_options, variadic_options and variadic_arg (the argument that repeats, -1 when none).`);
  line(`__${fn}_command() {`);
  line(`  commands=() options=() value_options=() variadic_options=() variadic_arg=-1`);
  line(`  case $1 in`);
  for (const node of nodes) {
    line(`    (${sq(node.path)})`);
    array(
      "      ",
      "commands",
      node.subcommands.flatMap((s) => s.names.map((value) => described({ value, description: s.description }))),
    );
    array(
      "      ",
      "options",
      node.flags.flatMap((f) => f.names.map((value) => described({ value, description: f.description }))),
    );
    const valued = node.flags.filter((f) => f.takesValue).flatMap((f) => f.names);
    if (valued.length > 0) line(`      value_options=(${valued.join(" ")})`);
    const variadic = node.flags.filter((f) => f.takesValue && f.variadic).flatMap((f) => f.names);
    if (variadic.length > 0) line(`      variadic_options=(${variadic.join(" ")})`);
    if (node.variadicFrom !== undefined) line(`      variadic_arg=${node.variadicFrom}`);
    line(`      ;;`);
  }
  line(`  esac`);
  line(`}`);
  line();
  line(`# The command that word $2 names under command $1, in REPLY (empty when it names none).`);
  line(`__${fn}_subcommand() {`);
  line(`  case "$1|$2" in`);
  for (const node of nodes) for (const sub of node.subcommands) line(`    (${patterns(node.path, sub.names, sq)}) REPLY=${sq(sub.path)} ;;`);
  line(`    (*) REPLY= ;;`);
  line(`  esac`);
  line(`}`);
  line();
  line(`# Completes the value of option $2 of command $1, or its argument number $2 ("#0" is the first).`);
  line(`__${fn}_values() {`);
  line(`  local -a values`);
  line(`  case "$1|$2" in`);
  for (const node of nodes) {
    for (const { keys, values } of valueCases(node)) {
      if (values.type === "files") line(`    (${patterns(node.path, keys, sq)}) _files; return ;;`);
      else if (values.type === "words") line(`    (${patterns(node.path, keys, sq)}) values=(${values.words.map(described).join(" ")}) ;;`);
    }
  }
  line(`    (*) return 1 ;;`);
  line(`  esac`);
  line(`  _describe -t values value values`);
  line(`}`);
  line();
  line(`_${fn}() {`);
  line(`  local cmd=${sq(root)} word pending= variadic= REPLY`);
  line(`  local -a commands options value_options variadic_options`);
  line(`  local -i i npos=0 dashdash=0 variadic_arg=-1`);
  line(`  __${fn}_command $cmd`);
  line(`  # Walk the words before the cursor: options and their values, subcommands, arguments.`);
  line(`  for (( i = 2; i < CURRENT; i++ )); do`);
  line(`    word=$words[i]`);
  line(`    if [[ -n $pending ]]; then`);
  line(`      (( \${variadic_options[(Ie)$pending]} )) && variadic=$pending`);
  line(`      pending=`);
  line(`    elif (( dashdash == 0 )) && [[ $word == -- ]]; then`);
  line(`      dashdash=1 variadic=`);
  line(`    elif (( dashdash == 0 )) && [[ $word == -?* ]]; then`);
  line(`      variadic=`);
  line(`      (( \${value_options[(Ie)$word]} )) && pending=$word`);
  line(`    elif [[ -n $variadic ]]; then`);
  line(`      :`);
  line(`    else`);
  line(`      REPLY=`);
  line(`      (( npos == 0 )) && __${fn}_subcommand $cmd $word`);
  line(`      if [[ -n $REPLY ]]; then`);
  line(`        cmd=$REPLY`);
  line(`        __${fn}_command $cmd`);
  line(`      else`);
  line(`        (( ++npos ))`);
  line(`      fi`);
  line(`    fi`);
  line(`  done`);
  line(`  # --output=json is one word in zsh.`);
  line(`  if [[ -z $pending ]] && (( dashdash == 0 )) && [[ $PREFIX == -*=* ]] && (( \${value_options[(Ie)\${PREFIX%%=*}]} )); then`);
  line(`    pending=\${PREFIX%%=*}`);
  line(`    compset -P '*='`);
  line(`  fi`);
  line(`  if [[ -n $pending ]]; then`);
  line(`    __${fn}_values $cmd $pending`);
  line(`  elif (( dashdash == 0 )) && [[ $PREFIX == -* ]]; then`);
  line(`    _describe -t options option options`);
  line(`  elif [[ -n $variadic ]]; then`);
  line(`    __${fn}_values $cmd $variadic`);
  line(`  elif (( npos == 0 && $#commands > 0 )); then`);
  line(`    _describe -t commands command commands`);
  line(`  else`);
  line(`    (( variadic_arg >= 0 && npos > variadic_arg )) && npos=variadic_arg`);
  line(`    __${fn}_values $cmd "#$npos"`);
  line(`  fi`);
  line(`}`);
  line();
  line(`if [[ $funcstack[1] == _${fn} ]]; then`);
  line(`  # Autoloaded from $fpath: complete now.`);
  line(`  _${fn} "$@"`);
  line(`else`);
  line(`  compdef _${fn} ${root}`);
  line(`fi`);
  return `${out.join("\n")}\n`;
}

/** A fish single-quoted string (fish escapes \\ and ' inside them). */
const fq = (s: string) => `'${s.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`;

function fish(nodes: Node[]): string {
  const root = nodes[0]!.path;
  const fn = ident(root);
  const out: string[] = [];
  const line = (text = "") => out.push(text);
  const condition = (test: string) => `-n ${fq(test)}`;
  const desc = (d: string) => (d === "" ? "" : ` -d ${fq(d)}`);
  const flagLine = (flag: Flag, prefix: string) => {
    const names = [flag.short && (flag.short.length === 2 ? `-s ${flag.short.slice(1)}` : `-o ${flag.short.slice(1)}`), flag.long && `-l ${flag.long.slice(2)}`]
      .filter(Boolean)
      .join(" ");
    const value = !flag.takesValue
      ? ""
      : flag.values.type === "files"
        ? " -r -F"
        : flag.values.type === "words"
          ? ` -x -a ${fq(words(flag.values.words))}`
          : " -x";
    return `complete -c ${root}${prefix} ${names}${value}${desc(flag.description)}`;
  };

  line(`# fish completion for ${root}, generated from the command tree by \`${root} completion fish\`; regenerate it rather than edit it.`);
  line(`#   ${root} completion fish > ~/.config/fish/completions/${root}.fish`);
  line();
  line(`# Options that take a value, of command $argv[1] (its words), one a line; "variadic" lists those that take many.`);
  line(`function __${fn}_value_options`);
  line(`    switch "$argv[1]|$argv[2]"`);
  for (const node of nodes) {
    const valued = node.flags.filter((f) => f.takesValue).flatMap((f) => f.names);
    const variadic = node.flags.filter((f) => f.takesValue && f.variadic).flatMap((f) => f.names);
    if (valued.length > 0) {
      line(`        case ${fq(`${node.path}|`)}`);
      line(`            printf '%s\\n' ${valued.join(" ")}`);
    }
    if (variadic.length > 0) {
      line(`        case ${fq(`${node.path}|variadic`)}`);
      line(`            printf '%s\\n' ${variadic.join(" ")}`);
    }
  }
  line(`    end`);
  line(`end`);
  line();
  line(`# The command that word $argv[2] names under command $argv[1], if any.`);
  line(`function __${fn}_subcommand`);
  line(`    switch "$argv[1]|$argv[2]"`);
  for (const node of nodes) {
    for (const sub of node.subcommands) {
      line(`        case ${sub.names.map((n) => fq(`${node.path}|${n}`)).join(" ")}`);
      line(`            echo ${fq(sub.path)}`);
    }
  }
  line(`    end`);
  line(`end`);
  line();
  line(`# Where the command line is, one a line: the command (its words), how many arguments it has,`);
  line(`# 1 when the next word is an option's value (0 when not), and the option taking many values whose`);
  line(`# values the command line ends with (none if it does not).`);
  line(`function __${fn}_state`);
  line(`    set -l cmd ${fq(root)}`);
  line(`    set -l npos 0`);
  line(`    set -l pending 0`);
  line(`    set -l variadic none`);
  line(`    set -l dashdash 0`);
  line(`    set -l tokens (commandline -opc)`);
  line(`    set -e tokens[1]`);
  line(`    for word in $tokens`);
  line(`        if test $pending = 1`);
  line(`            set pending 0`);
  line(`        else if test $dashdash = 0; and test "$word" = --`);
  line(`            set dashdash 1`);
  line(`            set variadic none`);
  line(`        else if test $dashdash = 0; and string match -q -- '-?*' $word`);
  line(`            set variadic none`);
  line(`            if contains -- $word (__${fn}_value_options $cmd)`);
  line(`                set pending 1`);
  line(`                contains -- $word (__${fn}_value_options $cmd variadic); and set -- variadic $word`);
  line(`            end`);
  line(`        else if test "$variadic" = none`);
  line(`            set -l sub`);
  line(`            test $npos = 0; and set sub (__${fn}_subcommand $cmd $word)`);
  line(`            if test -n "$sub"`);
  line(`                set cmd $sub`);
  line(`            else`);
  line(`                set npos (math $npos + 1)`);
  line(`            end`);
  line(`        end`);
  line(`    end`);
  line(`    printf '%s\\n' $cmd $npos $pending $variadic`);
  line(`end`);
  line();
  line(`# Whether the command line is in command $argv[1] and, given $argv[2], at that argument (N, or N+ for N or later).`);
  line(`function __${fn}_is`);
  line(`    set -l state (__${fn}_state)`);
  line(`    test "$state[1]" = "$argv[1]"; or return 1`);
  line(`    set -q argv[2]; or return 0`);
  line(`    test "$state[3]" = 0; or return 1`);
  line(`    if string match -q -- '*+' $argv[2]`);
  line(`        test $state[2] -ge (string trim -r -c + -- $argv[2])`);
  line(`    else`);
  line(`        test $state[2] -eq $argv[2]`);
  line(`    end`);
  line(`end`);
  line();
  line(`# Whether the command line is in command $argv[1], among the values of one of the options $argv[2..].`);
  line(`function __${fn}_more`);
  line(`    set -l state (__${fn}_state)`);
  line(`    test "$state[1]" = "$argv[1]"; and test "$state[3]" = 0; and contains -- "$state[4]" $argv[2..-1]`);
  line(`end`);
  line();
  line(`# Whether the command line is in command $argv[1] or one below it (whose options include its).`);
  line(`function __${fn}_in`);
  line(`    set -l state (__${fn}_state)`);
  line(`    test "$state[1]" = "$argv[1]"; or string match -q -- "$argv[1] *" "$state[1]"`);
  line(`end`);
  line();
  line(`# Files only where an option takes them.`);
  line(`complete -c ${root} -f`);

  // The help option is usually alike everywhere: then one line, without a condition.
  const first = nodes[0]!.help;
  const sameHelp = first !== undefined && nodes.every((n) => n.help !== undefined && flagLine(n.help, "") === flagLine(first, ""));
  if (sameHelp) line(flagLine(first, ""));

  for (const node of nodes) {
    line();
    line(`# ${node.path}`);
    const is = node.path === root ? "" : ` ${condition(`__${fn}_is ${JSON.stringify(node.path)}`)}`;
    for (const sub of node.subcommands)
      for (const name of sub.names) line(`complete -c ${root} ${condition(`__${fn}_is ${JSON.stringify(node.path)} 0`)} -a ${name}${desc(sub.description)}`);
    // A command's options hold below it too (commander reads them after subcommands).
    const inScope = node.path === root ? "" : ` ${condition(`__${fn}_in ${JSON.stringify(node.path)}`)}`;
    for (const flag of node.own) line(flagLine(flag, node.subcommands.length > 0 ? inScope : is));
    if (!sameHelp && node.help !== undefined) line(flagLine(node.help, node.path === root ? ` ${condition(`__${fn}_is ${JSON.stringify(root)}`)}` : is));
    // The next values of an option that takes many (-f a.yaml b.yaml).
    for (const flag of node.flags) {
      if (!flag.takesValue || !flag.variadic || flag.values.type === "none") continue;
      const cond = ` ${condition(`__${fn}_more ${JSON.stringify(node.path)} ${flag.names.join(" ")}`)}`;
      if (flag.values.type === "files") line(`complete -c ${root}${cond} -F`);
      else line(`complete -c ${root}${cond} -a ${fq(words(flag.values.words))}`);
    }
    node.args.forEach((values, i) => {
      if (values.type === "none") return;
      const at = `${i}${node.variadicFrom === i ? "+" : ""}`;
      const cond = ` ${condition(`__${fn}_is ${JSON.stringify(node.path)} ${at}`)}`;
      if (values.type === "files") line(`complete -c ${root}${cond} -F`);
      else for (const w of values.words) line(`complete -c ${root}${cond} -a ${w.value}${desc(w.description)}`);
    });
  }
  return `${out.join("\n")}\n`;
}
