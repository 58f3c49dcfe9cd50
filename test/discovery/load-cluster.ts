import { readFileSync } from "node:fs";
import { type ClusterObjects, groupClusterObjects } from "@meshplane/core";
import { parseAllDocuments } from "yaml";

/**
 * Reads a multi-document YAML fixture into the ClusterObjects an agent would list from `cluster`.
 * Throws on invalid YAML or an unexpected kind, so a broken fixture fails loudly.
 */
export function loadCluster(path: string, cluster: string): ClusterObjects {
  const objects: unknown[] = [];
  for (const doc of parseAllDocuments(readFileSync(path, "utf8"))) {
    if (doc.errors.length > 0) throw new Error(`${path}: ${doc.errors[0]?.message}`);
    const object = doc.toJS() as unknown;
    if (object !== null) objects.push(object);
  }
  try {
    return groupClusterObjects(cluster, objects);
  } catch (error) {
    throw new Error(`${path}: ${(error as Error).message}`, { cause: error });
  }
}
