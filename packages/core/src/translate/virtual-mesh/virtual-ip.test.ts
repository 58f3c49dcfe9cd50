import { describe, expect, it } from "vitest";
import type { Destination } from "../../api/index";
import { allocateVirtualIps } from "./virtual-ip";

function destination(name: string): Destination {
  return {
    kind: "Destination",
    metadata: { name: `${name}-ns-c`, cluster: "c" },
    spec: { name, namespace: "ns", cluster: "c", mesh: "m", labels: {}, selector: {}, ports: [], subsets: {}, endpoints: [], workloads: [] },
  };
}

describe("allocateVirtualIps", () => {
  const many = Array.from({ length: 5000 }, (_, i) => destination(`svc-${String(i).padStart(5, "0")}`));

  it("gives every destination a distinct address in 240.0.0.0/4 other than the broadcast address", () => {
    const ips = [...allocateVirtualIps(many).values()];
    expect(new Set(ips).size).toBe(many.length);
    for (const ip of ips) {
      const first = Number(ip.split(".")[0]);
      expect(first).toBeGreaterThanOrEqual(240);
      expect(ip).not.toBe("255.255.255.255");
    }
  });

  it("keeps a destination's address when others come and go (absent a collision)", () => {
    const alone = allocateVirtualIps([destination("reviews")]).get("reviews-ns-c");
    const together = allocateVirtualIps([...many.slice(0, 100), destination("reviews")].sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1)));
    expect(together.get("reviews-ns-c")).toBe(alone);
  });
});
