import type { AuthoringClient } from "../control-plane/client";
import type { Logger } from "../observability/log";
import type { AuthoringOptions } from "./options";
import { type AuthoringCounters, AuthoringSync, type AuthoringSyncDeps } from "./sync";

export interface StartAuthoringDeps {
  kube: AuthoringSyncDeps["kube"];
  client: AuthoringClient;
  /** Only the leader watches and syncs. */
  active: () => boolean;
  log: Logger;
  counters: AuthoringCounters;
}

/** How often leadership is looked at. */
const LEADERSHIP_CHECK_MS = 1000;

/**
 * Starts syncing the meshplane custom resources (docs/gitops.md#the-agent) on a timer of its own:
 * while this replica leads, an AuthoringSync watches and syncs; a replica that stops leading drops
 * it with all it held (the next leader lists everything again). The answer's `stop()` ends it.
 */
export function startAuthoring(options: AuthoringOptions, deps: StartAuthoringDeps): { stop(): void } {
  let sync: AuthoringSync | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const tick = () => {
    if (stopped) return;
    const leader = deps.active();
    if (leader && !sync) {
      const started = new AuthoringSync({ ...deps, ...options });
      sync = started;
      void started.start().catch((error: unknown) => deps.log.error("authoring: the watch did not start", { detail: (error as Error).message }));
    } else if (!leader && sync) {
      sync.stop();
      sync = undefined;
    }
    timer = setTimeout(tick, LEADERSHIP_CHECK_MS);
  };
  tick();
  deps.log.info("authoring: watching meshplane custom resources", {
    namespaces: options.namespaces.length > 0 ? options.namespaces : "all",
    syncEverySeconds: options.syncEveryMs / 1000,
    statusEverySeconds: options.statusEveryMs / 1000,
  });
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
      sync?.stop();
    },
  };
}
