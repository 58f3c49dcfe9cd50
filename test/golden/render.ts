import { parse, stringify } from "yaml";
import type { TranslateInput, TranslateOutput } from "../../packages/core/src/translate/index";
import { buildInput, type TenantDescription } from "./tenant";

/** Reads a golden `input.yaml`. */
export function loadInput(text: string): TranslateInput {
  return buildInput(parse(text) as TenantDescription);
}

/**
 * The golden form of an output: statuses first (what a reviewer checks first), then each cluster's
 * hash, certificate directives and objects. Shared sub-objects are written out in full, never as
 * YAML aliases, so every object reads on its own. Written with YAML 1.1 quoting, so strings such as
 * `yes` or `on` are quoted and read back as strings by 1.1 readers too (kubectl, PyYAML).
 */
export function renderOutput(output: TranslateOutput): string {
  const statuses = Object.fromEntries(Object.entries(output.statuses).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const clusters = Object.fromEntries(
    Object.entries(output.clusters).map(([name, c]) => [name, { hash: c.hash, certificates: c.certificates, objects: c.objects }]),
  );
  return stringify({ statuses, clusters }, { aliasDuplicateObjects: false, lineWidth: 0, version: "1.1" });
}
