import { createHash } from "node:crypto";
import type { Destination } from "../../api/index";

const CLASS_E = 0xf0000000; // 240.0.0.0/4: reserved, never routed, so it cannot shadow a real address
const HOST_BITS = 0x0fffffff;
const BROADCAST = 0xffffffff;

function dotted(n: number): string {
  return [24, 16, 8, 0].map((shift) => (n >>> shift) & 0xff).join(".");
}

function hashed(destination: Destination): number {
  const { name, namespace, cluster } = destination.spec;
  const digest = createHash("sha256").update(`${name}.${namespace}.${cluster}`).digest();
  return (CLASS_E | (digest.readUInt32BE(0) & HOST_BITS)) >>> 0;
}

/**
 * Stable virtual IPs in 240.0.0.0/4 for federated destinations (docs/resources.md#virtualmesh),
 * from a hash of name/namespace/cluster. Two destinations whose hashes collide would make Istio
 * merge their listeners, so the one later by name takes the next free address: addresses only move
 * on a collision, and the result does not depend on input order. `destinations` sorted by name.
 */
export function allocateVirtualIps(destinations: readonly Destination[]): Map<string, string> {
  const taken = new Set<number>();
  const out = new Map<string, string>();
  for (const destination of destinations) {
    let address = hashed(destination);
    while (taken.has(address) || address === BROADCAST) address = (CLASS_E | ((address + 1) & HOST_BITS)) >>> 0;
    taken.add(address);
    out.set(destination.metadata.name, dotted(address));
  }
  return out;
}
