import type { DynamoDBDocumentClient, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { DiscoveredStore } from "./discovered";
import { keys } from "./keys";

/** A table of discovered items answering Queries by PK and SK prefix, keeping what it was asked. */
function table(items: { cluster: string; kind: string; name: string }[]) {
  const stored = items
    .map(({ cluster, kind, name }) => ({
      ...keys.discovered("t1", cluster, kind, name),
      body: JSON.stringify({ kind, metadata: { name }, spec: { cluster, namespace: "shop" } }),
    }))
    .sort((a, b) => (a.SK < b.SK ? -1 : 1));
  const asked: QueryCommand["input"][] = [];
  const doc = {
    send: async (command: QueryCommand) => {
      asked.push(command.input);
      const values = command.input.ExpressionAttributeValues as Record<string, string>;
      return { Items: stored.filter((i) => i.PK === values[":pk"] && i.SK.startsWith(values[":prefix"] ?? "")) };
    },
  } as unknown as DynamoDBDocumentClient;
  return { store: new DiscoveredStore({ doc, table: "t" }), asked };
}

describe("every discovered kind at once", () => {
  const items = [
    { cluster: "west", kind: "Destination", name: "reviews-shop-west" },
    { cluster: "east", kind: "Destination", name: "reviews-shop-east" },
    { cluster: "east", kind: "Destination", name: "cart-shop-east" },
    { cluster: "east", kind: "Workload", name: "cart-v1-shop-east-deployment" },
    { cluster: "west", kind: "Workload", name: "cart-v1-shop-west-deployment" },
    { cluster: "east", kind: "Mesh", name: "istiod-east" },
    { cluster: "west", kind: "Mesh", name: "istiod-west" },
    { cluster: "gone", kind: "Mesh", name: "istiod-gone" },
  ];

  it("is one Query per cluster, and each kind's list is what `list` gives", async () => {
    const { store, asked } = table(items);
    const all = await store.allKinds("t1", ["east", "west"]);
    expect(asked.map((q) => (q.ExpressionAttributeValues as Record<string, string>)[":prefix"])).toEqual(["D#", "D#"]);
    asked.length = 0;
    expect(all).toEqual({
      meshes: await store.list("t1", ["east", "west"], "Mesh"),
      workloads: await store.list("t1", ["east", "west"], "Workload"),
      destinations: await store.list("t1", ["east", "west"], "Destination"),
    });
    expect(all.destinations.map((d) => d.metadata.name)).toEqual(["cart-shop-east", "reviews-shop-east", "reviews-shop-west"]);
    expect(asked).toHaveLength(6);
  });

  it("is empty without clusters, asking nothing", async () => {
    const { store, asked } = table(items);
    expect(await store.allKinds("t1", [])).toEqual({ meshes: [], workloads: [], destinations: [] });
    expect(asked).toEqual([]);
  });
});
