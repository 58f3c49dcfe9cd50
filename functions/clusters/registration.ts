/**
 * A cluster's registration (docs/api.md#endpoints): registering it issues a one-time bootstrap token,
 * which its agent exchanges for its binding (agent-protocol.ts), and the helm values that install the
 * agent; a new token can be issued; deregistering forgets what was discovered in it.
 */
import { enqueueTranslate } from "../queue/enqueue";
import type { TranslateQueue } from "../queue/translate-queue";
import type { Logger } from "../shared/logger";
import type { Signer } from "../signer/signer";
import type { Bootstrap, Cluster, Store } from "../store/index";

export interface RegistrationDeps {
  store: Store;
  /** Publishes the snapshot signing keys the agent pins (JWKS). */
  signer: Pick<Signer, "jwks">;
  queue: TranslateQueue;
  now: () => Date;
  log: Logger;
  /** The push channel's URL when it has its own (AWS); undefined = on the API's origin. */
  pushUrl?: string;
}

/**
 * The chart values that install a cluster's agent: where the control plane is, the cluster's name, the
 * one-time bootstrap token, and the signing keys pinned so the agent never trusts the network for them.
 */
export function agentHelmValues(apiUrl: string, cluster: string, token: string, jwks: { keys: unknown[] }, pushUrl?: string) {
  return {
    // A control plane served over plain http is a development one (`npm start`); say so explicitly.
    controlPlane: { url: apiUrl, ...(apiUrl.startsWith("http://") ? { allowInsecure: true } : {}), ...(pushUrl ? { pushUrl } : {}) },
    cluster: { name: cluster },
    bootstrap: { token },
    trust: { jwks },
  };
}

/** The same values as the one line an operator runs against the cluster. The token expires and works once. */
export function helmInstallLine(values: ReturnType<typeof agentHelmValues>): string {
  return [
    "helm upgrade --install meshplane-agent packages/agent/chart",
    "--namespace meshplane-system --create-namespace",
    `--set controlPlane.url=${values.controlPlane.url}`,
    ...(values.controlPlane.allowInsecure ? ["--set controlPlane.allowInsecure=true"] : []),
    ...(values.controlPlane.pushUrl ? [`--set controlPlane.pushUrl=${values.controlPlane.pushUrl}`] : []),
    `--set cluster.name=${values.cluster.name}`,
    `--set-string bootstrap.token=${values.bootstrap.token}`,
    `--set-json 'trust.jwks=${JSON.stringify(values.trust.jwks)}'`,
  ].join(" ");
}

/** What installs a cluster's agent: its bootstrap token, and the helm values and line that carry it to `apiUrl`. */
async function bootstrapAnswer(deps: RegistrationDeps, cluster: Cluster, bootstrap: Bootstrap, apiUrl: string) {
  const helmValues = agentHelmValues(apiUrl, cluster.name, bootstrap.token, await deps.signer.jwks(), deps.pushUrl);
  return { cluster, bootstrapToken: bootstrap.token, expiresAt: bootstrap.expiresAt, helmInstall: helmInstallLine(helmValues), helmValues };
}

/** The answer of a registration or a new bootstrap token. */
export type BootstrapAnswer = Awaited<ReturnType<typeof bootstrapAnswer>>;

/**
 * Registers the cluster `input.name` (ConflictError when it exists), logs it and enqueues the
 * translation; answers how to install its agent against the API at `apiUrl`.
 */
export async function registerCluster(
  deps: RegistrationDeps,
  tenantId: string,
  input: { name: string; labels?: Record<string, string> },
  apiUrl: string,
): Promise<BootstrapAnswer> {
  const { cluster, bootstrap, revision } = await deps.store.clusters.register(tenantId, input, deps.now());
  deps.log.info("cluster registered", { cluster: cluster.name });
  await enqueueTranslate(deps.queue, deps.log, tenantId, revision);
  return bootstrapAnswer(deps, cluster, bootstrap, apiUrl);
}

/** Issues a new bootstrap token for the cluster `name` (the previous one stops working; NotFoundError without the cluster). */
export async function issueBootstrapToken(deps: RegistrationDeps, tenantId: string, name: string, apiUrl: string): Promise<BootstrapAnswer> {
  const bootstrap = await deps.store.clusters.rotateBootstrap(tenantId, name, deps.now());
  const cluster = await deps.store.clusters.get(tenantId, name);
  return bootstrapAnswer(deps, cluster, bootstrap, apiUrl);
}

/** Deregisters the cluster `name` and forgets what was discovered in it; logs it and enqueues the translation. */
export async function deregisterCluster(deps: Omit<RegistrationDeps, "signer">, tenantId: string, name: string): Promise<void> {
  const revision = await deps.store.clusters.deregister(tenantId, name);
  deps.log.info("cluster deregistered", { cluster: name });
  await enqueueTranslate(deps.queue, deps.log, tenantId, revision);
}
