import { discover, groupClusterObjects } from "@meshplane/core";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { createDocumentClient } from "../../functions/store/client";
import { DiscoveredStore } from "../../functions/store/discovered";
import { FIXTURES } from "../support/agents";
import { type ControlPlane, startControlPlane } from "../support/control-plane";

let cp: ControlPlane;
beforeAll(async () => {
  cp = await startControlPlane();
});
afterAll(() => cp.stop());

/** Counts items written by BatchWriteItem, as DynamoDB bills them. */
function countedStore(): { store: DiscoveredStore; written: () => number } {
  const doc = createDocumentClient({ region: "us-east-1", endpoint: inject("dynamoEndpoint") });
  let items = 0;
  doc.middlewareStack.add(
    (next, context) => async (args) => {
      if (String(context.commandName).startsWith("BatchWrite")) {
        const input = args.input as { RequestItems: Record<string, unknown[]> };
        items += Object.values(input.RequestItems).reduce((n, list) => n + list.length, 0);
      }
      return next(args);
    },
    { step: "initialize", name: "countWrites" },
  );
  return { store: new DiscoveredStore({ doc, table: cp.table }), written: () => items };
}

describe("discovered objects", () => {
  it("a new report writes only what changed and deletes what went away", async () => {
    const objects = parseAllDocuments(readFileSync(join(FIXTURES, "istio-bookinfo.yaml"), "utf8"))
      .map((d) => d.toJS() as unknown)
      .filter(Boolean);
    const first = discover(groupClusterObjects("c1", objects));
    const { store, written } = countedStore();
    await store.replace("t1", "c1", first);
    const total = first.meshes.length + first.workloads.length + first.destinations.length;
    expect(written()).toBe(total);

    await store.replace("t1", "c1", first);
    expect(written()).toBe(total);

    const [changed, removed, ...rest] = first.destinations;
    const next = { ...first, destinations: [{ ...changed!, spec: { ...changed!.spec, labels: { ...changed!.spec.labels, tier: "new" } } }, ...rest] };
    await store.replace("t1", "c1", next);
    expect(written()).toBe(total + 2); // one put, one delete
    const names = (await store.list("t1", ["c1"], "Destination")).map((d) => d.metadata.name);
    expect(names).not.toContain(removed!.metadata.name);
    const stored = (await store.list("t1", ["c1"], "Destination")).find((d) => d.metadata.name === changed!.metadata.name) as typeof changed;
    expect(stored?.spec.labels.tier).toBe("new");
  });
});
