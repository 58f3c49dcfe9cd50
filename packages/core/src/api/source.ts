import { z } from "zod";
import { DNS_LABEL, dnsLabel } from "./common";

/**
 * Where a resource authored in a cluster came from (docs/gitops.md#names-and-sources): the cluster
 * whose agent submitted it — always the agent's own, from its credential, never from the body — and
 * the custom resource's namespace, name, uid and generation there.
 */
export const resourceSource = z.strictObject({
  cluster: dnsLabel,
  namespace: dnsLabel,
  name: dnsLabel,
  uid: z
    .string()
    .min(1)
    .max(64, "must be at most 64 characters")
    .regex(/^[A-Za-z0-9-]+$/, "must be a Kubernetes uid"),
  generation: z.number().int().min(1),
});
export type ResourceSource = z.infer<typeof resourceSource>;

/**
 * The stored name of a resource authored in a cluster (docs/gitops.md#names-and-sources):
 * `<name>.<namespace>.<cluster>`. Names the API takes are DNS labels, without a dot, so an authored
 * name can never be an API-created resource's; and the cluster is part of it, so two clusters'
 * resources never share one.
 */
export function authoredName(source: Pick<ResourceSource, "cluster" | "namespace" | "name">): string {
  return `${source.name}.${source.namespace}.${source.cluster}`;
}

const LABEL = DNS_LABEL.source.slice(1, -1);
/** An authored name: three DNS labels joined by dots. */
export const AUTHORED_NAME = new RegExp(`^(${LABEL})\\.(${LABEL})\\.(${LABEL})$`);

/** The parts of an authored name, or undefined when `name` is not one (an API-created resource's). */
export function parseAuthoredName(name: string): Pick<ResourceSource, "cluster" | "namespace" | "name"> | undefined {
  const match = AUTHORED_NAME.exec(name);
  if (!match) return undefined;
  const parts = name.split(".");
  const [own, namespace, cluster] = parts as [string, string, string];
  if (own.length > 63 || namespace.length > 63 || cluster.length > 63) return undefined;
  return { name: own, namespace, cluster };
}

/**
 * The name of any stored user resource: a DNS label (created through the API) or an authored name
 * (docs/gitops.md#names-and-sources). What a path parameter or a stored document's metadata.name is.
 */
export const resourceName = z
  .string()
  .max(191, "must be at most 191 characters")
  .regex(new RegExp(`^${LABEL}(\\.${LABEL}\\.${LABEL})?$`), "must be a DNS-1123 label, or <name>.<namespace>.<cluster> for a resource authored in a cluster")
  .refine((name) => (DNS_LABEL.test(name) && name.length <= 63) || parseAuthoredName(name) !== undefined, {
    message: "each part must be at most 63 characters",
  });
