import type { ChangeMarker } from "@meshplane/core/views";
import { type ChartSeries, chartModel } from "../chart-model";
import { collectionOf, href } from "../router";

/** A time as the charts write it: the hour and minute, with the day when the window spans days. */
export function timeLabel(ms: number, withDay: boolean): string {
  const d = new Date(ms);
  const time = d.toLocaleTimeString("en-GB", { hour: "2-digit", minute: "2-digit" });
  return withDay ? `${d.toLocaleDateString("en-GB", { day: "numeric", month: "short" })} ${time}` : time;
}

/** A change as a sentence: which policy, which version, where. */
export function markerText(m: ChangeMarker): string {
  return `${m.kind} ${m.name} version ${m.version} on ${m.cluster}`;
}

export const markerLink = (m: ChangeMarker) => href(["policies", collectionOf(m.kind) ?? "", m.name]);

/**
 * One chart of a destination's series: plain SVG, the lines hidden from screen readers (the points
 * are in the table below the charts). Each change is a vertical line that is a link to its policy:
 * reachable by Tab, its name shown on hover and focus.
 */
export function SignalChart({
  title,
  from,
  to,
  times,
  series,
  markers,
  minTop,
  formatY,
}: {
  title: string;
  from: number;
  to: number;
  times: number[];
  series: ChartSeries[];
  markers: readonly ChangeMarker[];
  minTop: number;
  formatY: (v: number) => string;
}) {
  const withDay = to - from > 24 * 3_600_000;
  const model = chartModel({
    from,
    to,
    times,
    series,
    markers: markers.map((m) => Date.parse(m.at)),
    minTop,
    formatY,
    formatTime: (t) => timeLabel(t, withDay),
  });
  const { plot } = model;
  const bottom = plot.y + plot.h;
  return (
    <figure class="chart">
      <figcaption>
        {title}
        {series.length > 1 && <span class="hint"> ({series.map((s) => `${s.name}${s.dashed ? " dashed" : " solid"}`).join(", ")})</span>}
      </figcaption>
      <svg viewBox={`0 0 ${model.width} ${model.height}`} role="group" aria-label={`${title}; changes in the window are links to their policies`}>
        <g aria-hidden="true">
          {model.yTicks.map((t) => (
            <g key={t.y} class="tick">
              <line x1={plot.x} x2={plot.x + plot.w} y1={t.y} y2={t.y} />
              <text x={plot.x - 6} y={t.y + 4} text-anchor="end">
                {t.label}
              </text>
            </g>
          ))}
          {model.xTicks.map((t) => (
            <text key={t.x} x={t.x} y={bottom + 18} text-anchor="middle" class="tick">
              {t.label}
            </text>
          ))}
          {model.paths.map((p) => (
            <path key={p.name} class={`line${p.dashed ? " dashed" : ""}`} d={p.d} />
          ))}
        </g>
        {markers.map((m, i) => {
          const x = model.markers[i];
          if (x === undefined) return null;
          const right = x > plot.x + plot.w / 2;
          return (
            <a key={`${m.at}-${m.kind}-${m.name}-${m.cluster}`} href={markerLink(m)} class="marker" aria-label={`Change: ${markerText(m)}, ${m.at}`}>
              <title>{`${markerText(m)} at ${timeLabel(Date.parse(m.at), true)}`}</title>
              <line x1={x} x2={x} y1={plot.y} y2={bottom} />
              <rect x={x - 5} y={plot.y} width={10} height={plot.h} class="hit" />
              <text x={right ? x - 5 : x + 5} y={plot.y + 12} text-anchor={right ? "end" : "start"}>
                {m.kind} {m.name} v{m.version}
              </text>
            </a>
          );
        })}
      </svg>
    </figure>
  );
}
