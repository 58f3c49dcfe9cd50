import { dnsSafeName } from "../../discovery/names";
import { compareStrings } from "../compare";

/**
 * The name of a generated object: its parts joined with `-` and made a DNS-1123 label by the same
 * rule as discovered names (docs/resources.md#envelope: long names keep a prefix and gain a hash
 * suffix).
 */
export function generatedName(...parts: string[]): string {
  return dnsSafeName(parts.join("-"));
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
