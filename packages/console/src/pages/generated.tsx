import type { GeneratedRef } from "@meshplane/core/views";
import { Empty } from "../ui";

/** Generated objects grouped by cluster. */
export function GeneratedObjects({ objects }: { objects: readonly GeneratedRef[] }) {
  if (objects.length === 0) return <Empty>None in the latest snapshots.</Empty>;
  const byCluster = new Map<string, GeneratedRef[]>();
  for (const o of objects) byCluster.set(o.cluster, [...(byCluster.get(o.cluster) ?? []), o]);
  return (
    <div class="generated">
      {[...byCluster]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([cluster, list]) => (
          <div key={cluster}>
            <h3>{cluster}</h3>
            <ul>
              {list.map((o) => (
                <li key={`${o.kind}/${o.namespace ?? ""}/${o.name}`}>
                  {o.kind}{" "}
                  <code>
                    {o.namespace ? `${o.namespace}/` : ""}
                    {o.name}
                  </code>
                </li>
              ))}
            </ul>
          </div>
        ))}
    </div>
  );
}
