/** What an agent reads back of the resources its cluster authored (docs/gitops.md#the-agent-protocol), for the statuses it writes. */
import type { AuthoredView } from "@meshplane/core/authoring";
import type { StoredResource } from "@meshplane/core/base";
import type { Page, PageRequest } from "../store/page";
import type { AuthoringDeps } from "./submit";

/** A stored resource as its agent reads it back: kind, stored name and generation, labels, source and status. */
export function authoredView(resource: StoredResource): AuthoredView {
  const { kind, metadata, status } = resource;
  return {
    kind: kind as AuthoredView["kind"],
    name: metadata.name,
    generation: metadata.generation,
    ...(metadata.labels ? { labels: metadata.labels } : {}),
    source: metadata.source as AuthoredView["source"],
    status,
  };
}

/** One page of the resources `cluster` authored, only its own, every kind, in the store's key order. */
export async function authoredPage(deps: Pick<AuthoringDeps, "store">, tenantId: string, cluster: string, request: PageRequest): Promise<Page<AuthoredView>> {
  const page = await deps.store.resources.authoredPage(tenantId, cluster, request);
  return { items: page.items.filter((r) => r.metadata.source?.cluster === cluster).map(authoredView), ...(page.next !== undefined ? { next: page.next } : {}) };
}
