import { GENERATED_KINDS, apiVersionsOf } from "@meshplane/core";
import { describe, expect, it } from "vitest";
import { validateGenerated } from "./index";

// validateGenerated maps each kind and version to a schema by hand (the schema packages are imports);
// a kind or version added to GENERATED_KINDS without one would go unchecked by every schema test.
describe("validateGenerated", () => {
  it.each(GENERATED_KINDS.flatMap((row) => apiVersionsOf(row).map((apiVersion) => [row.kind, apiVersion] as const)))(
    "has a schema for %s in %s",
    (kind, apiVersion) => {
      const object = { apiVersion, kind, metadata: { name: "x", namespace: "ns" }, spec: {} };
      expect(validateGenerated(object)).not.toContain(`no schema for ${apiVersion}/${kind}`);
    },
  );
});
