import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { parseArgs } from "node:util";
import { type FieldError, ValidationError, dnsLabel, fieldErrors } from "@meshplane/core";
import type { JWK } from "jose";
import { z } from "zod";
import { AUTHORING_FLAGS, type AuthoringOptions, authoringFlags, authoringOptions } from "./authoring/options";
import { METRICS_FLAGS, type MetricsOptions, metricsFlags, metricsOptions } from "./metrics/options";

/**
 * Everything the agent can be told, from flags or environment, parsed once here and handed to the
 * composition root (docs/style.md#5-parse-at-the-boundary-once-then-trust-the-types and
 * docs/style.md#10-thin-entry-points-one-composition-root-per-runtime).
 */
export interface AgentOptions {
  controlPlaneUrl: string;
  cluster: string;
  namespace: string;
  /** File holding the one-time bootstrap token (mounted from the chart's Secret). */
  bootstrapTokenFile: string;
  /** Snapshot signing keys pinned at install: a JWK set. */
  trustedKeys: JWK[];
  pollIntervalMs: number;
  /** Keep a push channel open (docs/push.md), so a new generation is fetched at once; polling goes on. */
  push: boolean;
  /**
   * Where the push channel is when it is not on the control plane's own origin (on AWS it is an API
   * Gateway WebSocket API of its own); undefined = `<control plane>/v1/agent/push`.
   */
  pushUrl?: string;
  /** Fraction of the interval added at random, so a fleet does not poll in lockstep. */
  pollJitter: number;
  /** How often objects are re-applied even when the snapshot is unchanged (drift correction). */
  resyncIntervalMs: number;
  discoveryDebounceMs: number;
  healthPort: number;
  leaseName: string;
  /** This replica's identity in the Lease (the pod name). */
  identity: string;
  /** Unset = in-cluster configuration. */
  kubeconfig?: string;
  certificates: CertificateOptions;
  /** Golden signals from the cluster's Prometheus (docs/agent.md#metrics); undefined: off (no URL, or `--metrics=false`). */
  metrics?: MetricsOptions;
  /** The meshplane custom resources synced to the control plane (docs/gitops.md#the-agent); undefined: off (the default). */
  authoring?: AuthoringOptions;
}

/** What the agent may do for shared trust (chart values `certificates.*`; docs/agent.md). */
export interface CertificateOptions {
  /** Whether the agent manages `cacerts` at all; false reports every directive as failed, saying so. */
  enabled: boolean;
  /** Whether a `cacerts` Secret meshplane did not write may be replaced. */
  adoptExistingCacerts: boolean;
  /** Whether the agent may restart a mesh's workloads after its roots changed (the directive must ask too). */
  autoRestartPods: boolean;
  /** Pause between two workload restarts. */
  restartPauseMs: number;
}

const FLAGS = {
  "control-plane-url": "MESHPLANE_CONTROL_PLANE_URL",
  cluster: "MESHPLANE_CLUSTER",
  namespace: "MESHPLANE_NAMESPACE",
  "bootstrap-token-file": "MESHPLANE_BOOTSTRAP_TOKEN_FILE",
  "trusted-keys-file": "MESHPLANE_TRUSTED_KEYS_FILE",
  "poll-interval": "MESHPLANE_POLL_INTERVAL_SECONDS",
  "poll-jitter": "MESHPLANE_POLL_JITTER",
  "resync-interval": "MESHPLANE_RESYNC_INTERVAL_SECONDS",
  "discovery-debounce": "MESHPLANE_DISCOVERY_DEBOUNCE_MS",
  "health-port": "MESHPLANE_HEALTH_PORT",
  "lease-name": "MESHPLANE_LEASE_NAME",
  identity: "POD_NAME",
  kubeconfig: "KUBECONFIG",
  certificates: "MESHPLANE_CERTIFICATES",
  "adopt-existing-cacerts": "MESHPLANE_ADOPT_EXISTING_CACERTS",
  "auto-restart-pods": "MESHPLANE_AUTO_RESTART_PODS",
  "restart-pause": "MESHPLANE_RESTART_PAUSE_SECONDS",
  "allow-insecure-control-plane": "MESHPLANE_ALLOW_INSECURE_CONTROL_PLANE",
  push: "MESHPLANE_PUSH",
  "push-url": "MESHPLANE_PUSH_URL",
  ...METRICS_FLAGS,
  ...AUTHORING_FLAGS,
} as const;

/**
 * The poll interval when none is given. With the push channel the poll is only a fallback (a lost
 * message, a channel that cannot open), so it is long: a poll is most of what a cluster costs
 * (README, "What it costs"). Without push, the poll alone bounds how soon a change arrives.
 */
export const DEFAULT_POLL_WITH_PUSH_SECONDS = 300;
export const DEFAULT_POLL_SECONDS = 15;

const yesNo = (fallback: boolean) =>
  z
    .enum(["true", "false"], { error: "must be true or false" })
    .default(fallback ? "true" : "false")
    .transform((v) => v === "true");

const raw = z.strictObject({
  "control-plane-url": z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }),
  cluster: dnsLabel,
  namespace: dnsLabel.default("meshplane-system"),
  "bootstrap-token-file": z.string().min(1).default("/etc/meshplane/bootstrap/token"),
  "trusted-keys-file": z.string().min(1).default("/etc/meshplane/trust/jwks.json"),
  "poll-interval": z.coerce.number().min(1, "must be at least 1 second").max(3600).optional(),
  "poll-jitter": z.coerce.number().min(0).max(1).default(0.2),
  "resync-interval": z.coerce.number().min(10, "must be at least 10 seconds").default(300),
  "discovery-debounce": z.coerce.number().int().min(0).default(2000),
  "health-port": z.coerce.number().int().min(0).max(65535).default(8081),
  "lease-name": dnsLabel.default("meshplane-agent"),
  identity: z.string().min(1).default(hostname()),
  kubeconfig: z.string().min(1).optional(),
  certificates: yesNo(true),
  "adopt-existing-cacerts": yesNo(false),
  "auto-restart-pods": yesNo(false),
  "restart-pause": z.coerce.number().min(0).max(3600).default(30),
  "allow-insecure-control-plane": yesNo(false),
  push: yesNo(true),
  "push-url": z.url({ protocol: /^wss?$/, error: "must be a ws(s) URL" }).optional(),
  ...metricsFlags,
  ...authoringFlags,
});

/** Hosts an `http://` control plane may be on without opting in: this machine only. */
function isLoopback(host: string): boolean {
  return host === "localhost" || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * The bootstrap token and the agent's credentials travel to the control plane: over anything but
 * HTTPS they would cross the network in clear. `http://` is accepted on the loopback interface, or
 * with `--allow-insecure-control-plane=true` for a development control plane on a laptop.
 */
function insecureUrlError(url: string, allowed: boolean): string | undefined {
  const parsed = new URL(url);
  if (parsed.protocol === "https:" || parsed.protocol === "wss:" || allowed || isLoopback(parsed.hostname)) return undefined;
  return `must be an ${parsed.protocol.startsWith("ws") ? "wss" : "https"} URL: over ${parsed.protocol.replace(":", "")} the bootstrap token and the agent's credentials would cross the network in clear (for a development control plane, set --allow-insecure-control-plane=true)`;
}

const jwks = z.object({
  keys: z
    .array(z.looseObject({ kty: z.literal("EC"), crv: z.literal("P-256"), x: z.string(), y: z.string(), kid: z.string().min(1) }))
    .min(1, "must hold at least one key"),
});

/**
 * Options from command-line flags (`--cluster c1`), falling back to environment variables
 * (`MESHPLANE_CLUSTER`). Throws a ValidationError naming every bad option.
 */
export function readOptions(argv: string[], env: NodeJS.ProcessEnv, readFile: (path: string) => string = (p) => readFileSync(p, "utf8")): AgentOptions {
  const { values } = parseArgs({ args: argv, options: Object.fromEntries(Object.keys(FLAGS).map((f) => [f, { type: "string" as const }])), strict: true });
  const merged = Object.fromEntries(
    Object.entries(FLAGS).flatMap(([flag, variable]) => {
      const value = (values as Record<string, string | undefined>)[flag] ?? env[variable];
      return value === undefined || value === "" ? [] : [[flag, value]];
    }),
  );
  const parsed = raw.safeParse(merged);
  if (!parsed.success) throw new ValidationError("invalid agent options", fieldErrors(parsed.error).map(asOption));
  const o = parsed.data;
  for (const flag of ["control-plane-url", "push-url"] as const) {
    const url = o[flag];
    const insecure = url === undefined ? undefined : insecureUrlError(url, o["allow-insecure-control-plane"]);
    if (insecure !== undefined) throw new ValidationError("invalid agent options", [asOption({ path: flag, message: insecure })]);
  }
  let keys: JWK[];
  try {
    keys = jwks.parse(JSON.parse(readFile(o["trusted-keys-file"]))).keys as JWK[];
  } catch (error) {
    throw new ValidationError("invalid agent options", [
      { path: "--trusted-keys-file", message: `must name a JWK set file: ${(error as Error).message.split("\n")[0]}` },
    ]);
  }
  return {
    controlPlaneUrl: o["control-plane-url"].replace(/\/+$/, ""),
    cluster: o.cluster,
    namespace: o.namespace,
    bootstrapTokenFile: o["bootstrap-token-file"],
    trustedKeys: keys,
    pollIntervalMs: (o["poll-interval"] ?? (o.push ? DEFAULT_POLL_WITH_PUSH_SECONDS : DEFAULT_POLL_SECONDS)) * 1000,
    push: o.push,
    ...(o["push-url"] ? { pushUrl: o["push-url"] } : {}),
    pollJitter: o["poll-jitter"],
    resyncIntervalMs: o["resync-interval"] * 1000,
    discoveryDebounceMs: o["discovery-debounce"],
    healthPort: o["health-port"],
    leaseName: o["lease-name"],
    identity: o.identity,
    ...(o.kubeconfig ? { kubeconfig: o.kubeconfig } : {}),
    certificates: {
      enabled: o.certificates,
      adoptExistingCacerts: o["adopt-existing-cacerts"],
      autoRestartPods: o["auto-restart-pods"],
      restartPauseMs: o["restart-pause"] * 1000,
    },
    ...withMetrics(metricsOptions(o)),
    ...withAuthoring(authoringOptions(o)),
  };
}

const withMetrics = (metrics: MetricsOptions | undefined) => (metrics ? { metrics } : {});
const withAuthoring = (authoring: AuthoringOptions | undefined) => (authoring ? { authoring } : {});

function asOption(e: FieldError): FieldError {
  const flag = e.path.split(".")[0] as keyof typeof FLAGS;
  return { path: FLAGS[flag] ? `--${flag} (${FLAGS[flag]})` : e.path, message: e.message };
}
