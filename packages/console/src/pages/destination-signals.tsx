import type { DestinationMetrics, SeriesPoint } from "@meshplane/core/views";
import { useState } from "preact/hooks";
import { ApiError } from "../api";
import { SERIES_WINDOWS, destinationMetrics } from "../data";
import { href, navigate } from "../router";
import { formatMs, formatRate, formatRatio } from "../signal-format";
import { Empty, ErrorState, Loading, Section, Table, useAsync } from "../ui";
import { SignalChart, markerLink, markerText, timeLabel } from "./signal-chart";

/** The points behind the charts, rendered only once opened (48 hours of minutes is 2,880 rows). */
function PointsTable({ points, withDay }: { points: SeriesPoint[]; withDay: boolean }) {
  const [open, setOpen] = useState(false);
  return (
    <details onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
      <summary>The points behind the charts ({points.length})</summary>
      {open && (
        <Table head={["Time", "Requests", "Rate", "Failed", "p50", "p99"]}>
          {points.map((p) => (
            <tr key={p.t}>
              <th scope="row">{timeLabel(Date.parse(p.t), withDay)}</th>
              <td>{p.requests}</td>
              <td>{formatRate(p.rps)}</td>
              <td>{formatRatio(p.errorRatio)}</td>
              <td>{formatMs(p.p50Ms)}</td>
              <td>{formatMs(p.p99Ms)}</td>
            </tr>
          ))}
        </Table>
      )}
    </details>
  );
}

function Signals({ m, window }: { m: DestinationMetrics; window: string }) {
  const [combined, setCombined] = useState(false);
  const points = combined && m.combined ? m.combined.points : m.points;
  const from = Date.parse(m.from);
  const to = Date.parse(m.to);
  const times = points.map((p) => Date.parse(p.t));
  const chart = { from, to, times, markers: m.markers };
  const t = m.total;
  return (
    <>
      <p>
        Over the last {window}: {t.requests} requests ({formatRate(t.rps)}), {formatRatio(t.errorRatio)} failed, p50 {formatMs(t.p50Ms)}, p99{" "}
        {formatMs(t.p99Ms)}; {t.tcpOpened} TCP connections opened. Into this destination from callers in every cluster, one point a{" "}
        {m.stepSeconds === 60
          ? "minute"
          : m.stepSeconds === 3600
            ? "hour"
            : m.stepSeconds >= 3600
              ? `${m.stepSeconds / 3600} hours`
              : `${m.stepSeconds / 60} minutes`}
        .
      </p>
      {m.combined && (
        <label class="check">
          <input type="checkbox" checked={combined} onChange={(e) => setCombined((e.target as HTMLInputElement).checked)} /> The same service in every cluster
          it runs in, summed ({m.combined.clusters.join(", ")})
        </label>
      )}
      <div class="charts">
        <SignalChart {...chart} title="Requests per second" series={[{ name: "rate", values: points.map((p) => p.rps) }]} minTop={1} formatY={formatRate} />
        <SignalChart
          {...chart}
          title="Error ratio"
          series={[{ name: "failed", values: points.map((p) => p.errorRatio) }]}
          minTop={0.01}
          formatY={formatRatio}
        />
        <SignalChart
          {...chart}
          title="Latency"
          series={[
            { name: "p99", values: points.map((p) => p.p99Ms) },
            { name: "p50", values: points.map((p) => p.p50Ms), dashed: true },
          ]}
          minTop={10}
          formatY={formatMs}
        />
      </div>
      <PointsTable points={points} withDay={to - from > 24 * 3_600_000} />
      <h3>Changes in this window</h3>
      {m.markers.length === 0 ? (
        <p>No policy change reached this destination's cluster in the window.</p>
      ) : (
        <ul class="markers">
          {m.markers.map((c) => (
            <li key={`${c.at}-${c.kind}-${c.name}-${c.cluster}`}>
              {timeLabel(Date.parse(c.at), true)}: <a href={markerLink(c)}>{markerText(c)}</a> (generation {c.generation})
            </li>
          ))}
        </ul>
      )}
      <h3>Impact of changes</h3>
      {m.impacts.length === 0 ? (
        <p>No change in the window was followed by a rise in errors or p99 that the impact rule names.</p>
      ) : (
        <ul class="impacts">
          {m.impacts.map((i) => (
            <li key={`${i.change.at}-${i.change.name}-${i.signal}`} class="bad-text">
              {i.message} (<a href={markerLink(i.change)}>{i.change.name}</a>)
            </li>
          ))}
        </ul>
      )}
      {m.notes.length > 0 && (
        <>
          <h3>Notes</h3>
          <ul>
            {m.notes.map((n) => (
              <li key={n}>{n}</li>
            ))}
          </ul>
        </>
      )}
    </>
  );
}

/**
 * A destination's golden signals over a window (`GET /v1/destinations/{name}/metrics`): rate, error
 * ratio and p50/p99 charts with the changes that reached it as markers, their impact, and what the
 * figures cannot show. The window lives in the route.
 */
export function DestinationSignals({ name, cluster, window }: { name: string; cluster?: string; window: string }) {
  const data = useAsync((signal) => destinationMetrics(name, window, signal), [name, window]);
  const choose = (w: string) => navigate(href(["destinations", name], { cluster, window: w }), true);
  return (
    <Section title="Golden signals">
      <div class="filters">
        <label>
          Window
          <select value={window} onChange={(e) => choose((e.target as HTMLSelectElement).value)}>
            {SERIES_WINDOWS.map((w) => (
              <option key={w} value={w}>
                last {w}
              </option>
            ))}
          </select>
        </label>
      </div>
      {data.status === "loading" && <Loading what="its signals" />}
      {data.status === "error" &&
        (data.error instanceof ApiError && data.error.status === 404 ? (
          <Empty>No golden signals are kept for it yet: its cluster's agent sends them once its chart names the cluster's Prometheus.</Empty>
        ) : (
          <ErrorState error={data.error} retry={data.reload} />
        ))}
      {data.status === "ok" && <Signals m={data.data} window={window} />}
    </Section>
  );
}
