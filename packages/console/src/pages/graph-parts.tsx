/** The graph's words: the legend, each node's and edge's tooltip, where a destination links to. */
import { groupOf } from "../graph-model";
import type { GraphEdge, GraphNode } from "@meshplane/core/views";
import { href } from "../router";
import { ERROR_SCALE, formatMs, formatRate, formatRatio } from "../signal-format";

/** Where a click on a node goes: a destination's page (a workload has none). */
export function nodeLink(node: GraphNode): string | undefined {
  return node.kind === "destination" && node.resource ? href(["destinations", node.resource], { cluster: node.cluster }) : undefined;
}

/** What a node is, whole, for its tooltip and the table. */
export function nodeText(node: GraphNode): string {
  return `${node.namespace ? `${node.namespace}/` : ""}${node.name}`;
}

/** A node's tooltip: what it is, where, and its traffic in. */
export function nodeTitle(node: GraphNode): string {
  const s = node.signals;
  const figures = s ? `: ${formatRate(s.rps)}, ${formatRatio(s.errorRatio)} failed, p99 ${formatMs(s.p99Ms)}` : "";
  return `${node.kind} ${nodeText(node)} in ${groupOf(node)}${figures}`;
}

/** An edge's tooltip: its ends, how it goes and its figures. */
export function edgeTitle(edge: GraphEdge): string {
  const how = `${edge.protocol}${edge.crossCluster ? `, across clusters${edge.via ? ` via ${edge.via}` : ""}` : ""}`;
  return `${edge.source} → ${edge.target} (${how}): ${formatRate(edge.signals.rps)}, ${formatRatio(edge.signals.errorRatio)} failed, p99 ${formatMs(edge.signals.p99Ms)}`;
}

/** The legend: the error scale in words, and what width, dashes and shapes mean. */
export function Legend() {
  return (
    <ul class="legend" aria-label="Legend">
      {ERROR_SCALE.map((b) => (
        <li key={b.band}>
          <svg width="28" height="10" aria-hidden="true">
            <path class={`e e-${b.band}`} d="M2 5H26" stroke-width="3" />
          </svg>
          {b.label}
        </li>
      ))}
      <li>width: requests per second (log scale)</li>
      <li>
        <svg width="28" height="10" aria-hidden="true">
          <path class="e e-idle x" d="M2 5H26" stroke-width="2" />
        </svg>
        dashed: across clusters, labelled ⇄ E-W through the east-west gateway
      </li>
      <li>callers on the left of each cluster, destinations (rounded) on the right; a figure beside a line is its error ratio</li>
    </ul>
  );
}
