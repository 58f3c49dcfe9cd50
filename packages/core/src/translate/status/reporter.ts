import { sortedUnique } from "../compare";
import type { ResourceKey } from "../../identity";

type Errors = Map<string, Set<string>>;

function add(map: Errors, key: string, error: string): void {
  const set = map.get(key);
  if (set === undefined) map.set(key, new Set([error]));
  else set.add(error);
}

/**
 * Collects user mistakes while translators carry on
 * (docs/style.md#3-user-mistakes-are-reported-bugs-are-thrown). An error is about a resource as a
 * whole, about it on one destination, or (VirtualMesh) about it on one mesh; status building reads
 * them back. Repeated messages collapse, so translators may report the same problem once per port
 * or per cluster without flooding the status. Bugs are not reported: they throw.
 */
export class Reporter {
  private readonly resource: Errors = new Map();
  private readonly destination: Errors = new Map();
  private readonly mesh: Errors = new Map();

  /** Records `error` against `policy`, on `destination` when given, else on the policy as a whole. */
  report(policy: ResourceKey, destination: string | undefined, error: string): void {
    if (destination === undefined) add(this.resource, policy, error);
    else add(this.destination, `${policy}\u0000${destination}`, error);
  }

  /** Records `error` against a VirtualMesh's membership or federation of one mesh. */
  reportMesh(virtualMesh: ResourceKey, mesh: string, error: string): void {
    add(this.mesh, `${virtualMesh}\u0000${mesh}`, error);
  }

  /** Errors about the resource as a whole, sorted. */
  errorsOf(resource: ResourceKey): string[] {
    return sortedUnique(this.resource.get(resource) ?? []);
  }

  /** Errors about the resource on one destination, sorted. */
  destinationErrors(resource: ResourceKey, destination: string): string[] {
    return sortedUnique(this.destination.get(`${resource}\u0000${destination}`) ?? []);
  }

  /** Errors about a VirtualMesh on one mesh, sorted. */
  meshErrors(virtualMesh: ResourceKey, mesh: string): string[] {
    return sortedUnique(this.mesh.get(`${virtualMesh}\u0000${mesh}`) ?? []);
  }
}
