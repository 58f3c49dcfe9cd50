import { createHash } from "node:crypto";
import { dnsSafeName } from "../../discovery/names";
import { compareStrings } from "../compare";

/** A DNS-1123 subdomain is at most this long: every generated kind but Istio's Gateway takes one as its name. */
export const MAX_GENERATED_NAME_LENGTH = 253;

/**
 * The name of a generated object (docs/resources.md#generated-objects): its parts — discovered
 * names, user resource names, fixed words — joined with `.`, lower-cased, with every character a
 * DNS-1123 subdomain cannot hold made `-`. A Kubernetes Service name is a DNS-1123 label, so a name
 * of two parts or more never equals a name derived from a Service alone, and two names with
 * different parts differ in their labels; a name of one part is that part (a Service's own objects
 * keep its name). Longer than 253 characters: as much of it as fits, `.`, then the sha256 hex of
 * the whole. Never throws.
 */
export function generatedName(...parts: string[]): string {
  const name = parts.map((part) => part.toLowerCase().replace(/[^a-z0-9.-]/g, "-")).join(".");
  if (name.length <= MAX_GENERATED_NAME_LENGTH) return name;
  const hash = createHash("sha256").update(name).digest("hex");
  const prefix = name.slice(0, MAX_GENERATED_NAME_LENGTH - hash.length - 1).replace(/[-.]+$/, "");
  return `${prefix}.${hash}`;
}

/**
 * The name of a generated object whose kind takes only a DNS-1123 label (an Istio Gateway: Istio's
 * validation refuses a dot in it; docs/resources.md#generated-objects): its parts joined with `-`,
 * every `-` inside a part but the last doubled so the parts read back (the first single `-` ends the
 * first part), made a label by the rule for discovered names (docs/resources.md#envelope: long names
 * keep a prefix and gain a hash suffix).
 */
export function generatedLabel(...parts: string[]): string {
  const last = parts.length - 1;
  return dnsSafeName(parts.map((part, i) => (i < last ? part.replaceAll("-", "--") : part)).join("-"));
}

/**
 * The DestinationRule subset name for a label set (docs/resources.md#trafficpolicy): `key-value`
 * pairs sorted and joined with `-`, made DNS-safe (`{version: v2}` → `version-v2`), because Istio
 * requires subset names to be DNS labels while label keys may hold `/` and `.`.
 */
export function subsetName(labels: Record<string, string>): string {
  const pairs = Object.entries(labels)
    .map(([key, value]) => `${key}-${value}`)
    .sort(compareStrings);
  return dnsSafeName(pairs.join("-"));
}
