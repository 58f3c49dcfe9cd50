import type { Kube } from "../kube/kube";

interface Lease {
  apiVersion: "coordination.k8s.io/v1";
  kind: "Lease";
  metadata: { name: string; namespace: string; resourceVersion?: string };
  spec: { holderIdentity?: string; leaseDurationSeconds?: number; acquireTime?: string; renewTime?: string; leaseTransitions?: number };
}

// Renewed every third of the duration. A crashed leader is replaced within 30 s; a stopped one hands
// the lease back at once. The agent configures a mesh, it is not on the data path.
const DURATION_SECONDS = 30;

const leasePath = (namespace: string, name?: string) => `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases${name ? `/${name}` : ""}`;

/**
 * Leader election over a coordination.k8s.io Lease: a replica takes the lease when it is free or its
 * holder stopped renewing for a full duration, and renews it every third of one. Writes carry the
 * lease's resourceVersion, so two replicas cannot both win a race. Only the leader applies.
 */
export class LeaderElector {
  private leader = false;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly deps: { kube: Kube; namespace: string; name: string; identity: string; now?: () => Date; onChange?: (leader: boolean) => void },
  ) {}

  isLeader(): boolean {
    return this.leader;
  }

  start(): void {
    const tick = async () => {
      try {
        this.set(await this.tryAcquireOrRenew());
      } catch {
        this.set(false);
      }
      this.timer = setTimeout(tick, (DURATION_SECONDS * 1000) / 3);
    };
    void tick();
  }

  /** Stops campaigning; a leader hands the lease back so another replica can take over at once. */
  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    const wasLeader = this.leader;
    this.set(false);
    if (!wasLeader) return;
    const { kube, namespace, name, identity } = this.deps;
    try {
      const lease = await kube.raw<Lease>("GET", leasePath(namespace, name));
      if (lease?.spec.holderIdentity === identity)
        await kube.raw("PUT", leasePath(namespace, name), { ...lease, spec: { ...lease.spec, holderIdentity: "", renewTime: undefined } });
    } catch {
      // Best effort: the lease expires by itself.
    }
  }

  /** One election round; true when this replica holds the lease afterwards. */
  async tryAcquireOrRenew(): Promise<boolean> {
    const { kube, namespace, name, identity } = this.deps;
    const now = (this.deps.now ?? (() => new Date()))();
    const stamp = now.toISOString().replace("Z", "000Z"); // MicroTime wants microseconds
    const lease = await kube.raw<Lease>("GET", leasePath(namespace, name));
    if (!lease) {
      await kube.raw("POST", leasePath(namespace), {
        apiVersion: "coordination.k8s.io/v1",
        kind: "Lease",
        metadata: { name, namespace },
        spec: { holderIdentity: identity, leaseDurationSeconds: DURATION_SECONDS, acquireTime: stamp, renewTime: stamp, leaseTransitions: 0 },
      });
      return true;
    }
    const holder = lease.spec.holderIdentity;
    const renewed = lease.spec.renewTime ? Date.parse(lease.spec.renewTime) : 0;
    const expired = now.getTime() - renewed > (lease.spec.leaseDurationSeconds ?? DURATION_SECONDS) * 1000;
    if (holder && holder !== identity && !expired) return false;
    const takeover = holder !== identity;
    await kube.raw("PUT", leasePath(namespace, name), {
      ...lease,
      spec: {
        ...lease.spec,
        holderIdentity: identity,
        leaseDurationSeconds: DURATION_SECONDS,
        renewTime: stamp,
        ...(takeover ? { acquireTime: stamp, leaseTransitions: (lease.spec.leaseTransitions ?? 0) + 1 } : {}),
      },
    });
    return true;
  }

  private set(leader: boolean): void {
    if (leader !== this.leader) {
      this.leader = leader;
      this.deps.onChange?.(leader);
    }
  }
}
