import { describe, expect, it } from "vitest";
import { runCli } from "./cli";

const FILES: Record<string, string> = {
  "ok.yaml": "apiVersion: security.istio.io/v1\nkind: PeerAuthentication\nmetadata: {name: default, namespace: bookinfo}\nspec: {mtls: {mode: STRICT}}\n",
  "typo.yaml": [
    "apiVersion: security.istio.io/v1",
    "kind: PeerAuthentication",
    "metadata: {name: default, namespace: bookinfo}",
    "spec: {mtls: {mode: STRICT}, portLevelMTLs: {}}",
    "---",
    "apiVersion: v1",
    "kind: ConfigMap",
    "metadata: {name: c}",
    "",
  ].join("\n"),
  "broken.yaml": "apiVersion: [\n",
};
const read = (path: string) => {
  const text = FILES[path];
  if (text === undefined) throw new Error(`no such file ${path}`);
  return text;
};

describe("runCli", () => {
  it.each<[string, string[], ReturnType<typeof runCli>]>([
    ["a valid file", ["ok.yaml"], { lines: [], exitCode: 0 }],
    ["an unknown kind", ["typo.yaml"], { lines: ["typo.yaml#1 ConfigMap /c: no schema for v1/ConfigMap"], exitCode: 1 }],
    [
      "an unknown field with --strict",
      ["--strict", "typo.yaml"],
      {
        lines: ["typo.yaml#0 PeerAuthentication bookinfo/default: spec.portLevelMTLs: unknown field", "typo.yaml#1 ConfigMap /c: no schema for v1/ConfigMap"],
        exitCode: 1,
      },
    ],
    ["no file", ["--strict"], { lines: ["usage: cli.ts [--strict] <file.yaml>..."], exitCode: 2 }],
    ["an unknown option", ["--lenient", "ok.yaml"], { lines: ["usage: cli.ts [--strict] <file.yaml>..."], exitCode: 2 }],
  ])("%s", (_what, args, expected) => {
    expect(runCli(args, read)).toEqual(expected);
  });

  it("stops at YAML that does not parse", () => {
    const result = runCli(["ok.yaml", "broken.yaml"], read);
    expect(result.exitCode).toBe(2);
    expect(result.lines[0]).toMatch(/^broken\.yaml: /);
  });
});
