/**
 * Routes live in the URL's fragment (`#/destinations/reviews-bookinfo-cluster-east`): the static host
 * serves one index.html whatever the path, and a fragment never reaches a server or its logs. Nothing
 * secret is ever put in a route. Each part is percent-encoded and decoded whole, so a name with dots
 * (an authored resource's `cart-retries.shop.east`, docs/gitops.md#names-and-sources) is one part.
 */
import { useEffect, useState } from "preact/hooks";

export type Route =
  | { page: "overview" }
  | { page: "topology" }
  | { page: "graph"; query: URLSearchParams }
  | { page: "destinations"; query: URLSearchParams }
  | { page: "workloads"; query: URLSearchParams }
  | { page: "destination"; name: string; cluster?: string; window?: string }
  | { page: "policies"; query: URLSearchParams }
  | { page: "policy"; collection: Collection; name: string }
  | { page: "edit"; collection?: Collection; name?: string }
  | { page: "tenants" }
  | { page: "not-found"; path: string };

export const COLLECTIONS = { virtualmeshes: "VirtualMesh", trafficpolicies: "TrafficPolicy", accesspolicies: "AccessPolicy" } as const;
export type Collection = keyof typeof COLLECTIONS;
export const isCollection = (s: string | undefined): s is Collection => s !== undefined && Object.hasOwn(COLLECTIONS, s);
export const collectionOf = (kind: string): Collection | undefined => Object.entries(COLLECTIONS).find(([, k]) => k === kind)?.[0] as Collection | undefined;

export function parseRoute(hash: string): Route {
  const raw = hash.replace(/^#/, "") || "/";
  const [path = "/", search = ""] = raw.split("?", 2);
  const query = new URLSearchParams(search);
  let parts: string[];
  try {
    parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  } catch {
    return { page: "not-found", path }; // malformed percent-encoding names nothing
  }
  const [head, a, b] = parts;
  if (parts.length === 0) return { page: "overview" };
  if (head === "topology" && parts.length === 1) return { page: "topology" };
  if (head === "graph" && parts.length === 1) return { page: "graph", query };
  if (head === "destinations" && parts.length === 1) return { page: "destinations", query };
  if (head === "workloads" && parts.length === 1) return { page: "workloads", query };
  if (head === "destinations" && a && parts.length === 2)
    return {
      page: "destination",
      name: a,
      ...(query.get("cluster") ? { cluster: query.get("cluster") as string } : {}),
      ...(query.get("window") ? { window: query.get("window") as string } : {}),
    };
  if (head === "policies" && parts.length === 1) return { page: "policies", query };
  if (head === "policies" && isCollection(a) && b && parts.length === 3) return { page: "policy", collection: a, name: b };
  if (head === "edit" && parts.length === 1) return { page: "edit" };
  if (head === "edit" && isCollection(a) && parts.length === 2) return { page: "edit", collection: a };
  if (head === "edit" && isCollection(a) && b && parts.length === 3) return { page: "edit", collection: a, name: b };
  if (head === "tenants" && parts.length === 1) return { page: "tenants" };
  return { page: "not-found", path };
}

/** A link target for a route's path parts and query. */
export function href(parts: string[], query?: Record<string, string | undefined>): string {
  const q = new URLSearchParams(Object.entries(query ?? {}).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== ""));
  const qs = q.toString();
  return `#/${parts.map(encodeURIComponent).join("/")}${qs ? `?${qs}` : ""}`;
}

export function navigate(target: string, replace = false): void {
  if (replace) history.replaceState(null, "", target);
  else location.hash = target.replace(/^#/, "");
  if (replace) window.dispatchEvent(new HashChangeEvent("hashchange"));
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const on = () => setRoute(parseRoute(location.hash));
    window.addEventListener("hashchange", on);
    return () => window.removeEventListener("hashchange", on);
  }, []);
  return route;
}
