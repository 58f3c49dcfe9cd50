import { useMemo, useRef, useState } from "preact/hooks";
import type { GraphLayout } from "../graph-model";
import { navigate } from "../router";
import { edgeWidth, errorBand, formatRatio } from "../signal-format";
import { edgeTitle, nodeLink, nodeTitle } from "./graph-parts";

/** Long names are cut in the drawing; the table gives them whole. */
const short = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
const ZOOMS = [1, 0.5, 0.25] as const;
/** Above this many nodes the picture opens at half size, without labels: the whole is seen first. */
const FAR_FROM = 300;
const edgeKey = (e: { source: string; target: string; protocol: string }) => `${e.source}>${e.target}>${e.protocol}`;

/** A click anywhere on a destination's box goes to its page (one listener for every node). */
function openNode(event: MouseEvent): void {
  const link = (event.target as Element).closest("[data-href]")?.getAttribute("data-href");
  if (link) navigate(link);
}

/**
 * The graph as SVG, laid out by graph-model.ts. A large graph opens at half size with labels left
 * out (level of detail); "100%" brings them back. One tooltip follows the mouse (a title per line and
 * box would double the drawing). A destination is clicked through to its page; the keyboard's way
 * through the same edges is the table below, so the picture holds no focusable part.
 */
export function GraphPicture({ layout }: { layout: GraphLayout }) {
  const [zoom, setZoom] = useState<number>(layout.nodes.length > FAR_FROM ? 0.5 : 1);
  // Level of detail: zoomed out, labels would be too small to read, and they are most of the drawing.
  const near = zoom >= 1;
  const frame = useRef<HTMLElement>(null);
  const tip = useRef<HTMLDivElement>(null);
  const titles = useMemo(() => {
    const m = new Map<string, string>();
    for (const { node } of layout.nodes) m.set(`n:${node.id}`, nodeTitle(node));
    for (const { edge } of layout.edges) m.set(`e:${edgeKey(edge)}`, edgeTitle(edge));
    return m;
  }, [layout]);
  const hover = (event: MouseEvent) => {
    const t = tip.current;
    const f = frame.current;
    if (!t || !f) return;
    const over = (event.target as Element).closest("[data-node], [data-edge]");
    const node = over?.getAttribute("data-node");
    const text = titles.get(node ? `n:${node}` : `e:${over?.getAttribute("data-edge") ?? ""}`);
    t.hidden = text === undefined;
    if (text === undefined) return;
    t.textContent = text;
    const box = f.getBoundingClientRect();
    t.style.left = `${event.clientX - box.left + f.scrollLeft + 14}px`;
    t.style.top = `${event.clientY - box.top + f.scrollTop + 14}px`;
  };
  const edges = useMemo(
    () =>
      layout.edges.map(({ edge, d, mid }) => {
        const band = errorBand(edge.signals.errorRatio);
        const label = [edge.via === "east-west" ? "⇄ E-W" : "", band === "warn" || band === "bad" ? formatRatio(edge.signals.errorRatio) : ""]
          .filter(Boolean)
          .join(" · ");
        const key = edgeKey(edge);
        const line = <path key={key} data-edge={key} class={`e e-${band}${edge.crossCluster ? " x" : ""}`} d={d} stroke-width={edgeWidth(edge.signals.rps)} />;
        return near && label ? (
          <g key={key}>
            {line}
            <text x={mid.x} y={mid.y - 4} text-anchor="middle" class="elabel">
              {label}
            </text>
          </g>
        ) : (
          line
        );
      }),
    [layout, near],
  );
  const nodes = useMemo(
    () =>
      layout.nodes.map(({ node, x, y, w, h }) => {
        const link = nodeLink(node);
        const band = node.kind === "destination" ? errorBand(node.signals?.errorRatio) : "idle";
        const ratio = node.kind === "destination" ? node.signals?.errorRatio : undefined;
        return (
          <g key={node.id} class={`n n-${node.kind} n-${band}${link ? " go" : ""}`} data-node={node.id} {...(link ? { "data-href": link } : {})}>
            <rect x={x} y={y} width={w} height={h} rx={node.kind === "destination" ? 10 : 3} />
            {near && (
              <text x={x + 8} y={y + h - 6}>
                {short(node.name, ratio ? 19 : 25)}
              </text>
            )}
            {near && ratio ? (
              <text x={x + w - 6} y={y + h - 6} text-anchor="end" class="fig">
                {formatRatio(ratio)}
              </text>
            ) : null}
          </g>
        );
      }),
    [layout, near],
  );
  const clusters = layout.groups.length;
  const summary = `Graph of ${layout.nodes.length} nodes and ${layout.edges.length} edges in ${clusters} cluster group${clusters === 1 ? "" : "s"}; the table below lists every edge`;
  return (
    <>
      <div class="filters" role="group" aria-label="Picture size">
        {ZOOMS.map((z) => (
          <button key={z} type="button" class="button" aria-pressed={zoom === z} onClick={() => setZoom(z)}>
            {z * 100}%
          </button>
        ))}
        <span class="hint">{near ? "" : "Labels appear at 100%. "}Hover a line or box for its figures.</span>
      </div>
      {/* Focusable so the keyboard can scroll a picture wider or taller than the page. */}
      <figure
        ref={frame}
        class="graph mesh-graph"
        tabIndex={0}
        aria-label="The graph's picture, scrollable"
        onMouseLeave={() => tip.current && (tip.current.hidden = true)}
      >
        <svg
          viewBox={`0 0 ${layout.width} ${layout.height}`}
          width={Math.ceil(layout.width * zoom)}
          height={Math.ceil(layout.height * zoom)}
          role="img"
          aria-label={summary}
          onClick={openNode}
          onMouseOver={hover}
        >
          {layout.groups.map((g) => (
            <g key={g.name} class="cluster">
              <rect x={g.x} y={g.y} width={g.w} height={g.h} rx={10} />
              <text x={g.x + 12} y={g.y + 22} class="title">
                {g.name.startsWith("istio:") ? `${g.name} (no cluster of yours claims this Istio ID)` : g.name}
              </text>
            </g>
          ))}
          {near &&
            layout.headings.map((h) => (
              <text key={`${h.x},${h.y}`} x={h.x} y={h.y} class="ns">
                {short(h.text, 28)}
              </text>
            ))}
          {edges}
          {nodes}
        </svg>
        <div ref={tip} class="tip" aria-hidden="true" hidden />
      </figure>
    </>
  );
}
