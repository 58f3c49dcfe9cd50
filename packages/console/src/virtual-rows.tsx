/**
 * A list that renders only the rows in view (@tanstack/virtual-core), so 10,000 destinations cost
 * the DOM of about thirty. Rows are table rows by ARIA, with their index, so a screen reader still
 * hears "row 5,012 of 10,000".
 */
import { Virtualizer, elementScroll, observeElementOffset, observeElementRect } from "@tanstack/virtual-core";
import type { ComponentChildren } from "preact";
import { useEffect, useLayoutEffect, useReducer, useRef, useState } from "preact/hooks";

export interface Column<T> {
  /** The column's name (and key); `header` replaces it in the header row when set, e.g. a sort button. */
  title: string;
  header?: ComponentChildren;
  /** The column the rows are sorted by, and which way. */
  sort?: "ascending" | "descending";
  /** CSS grid track, e.g. "2fr" or "8rem". */
  width: string;
  cell: (row: T) => ComponentChildren;
}

export function VirtualRows<T>({
  rows,
  columns,
  rowKey,
  label,
  rowHeight = 36,
}: {
  rows: readonly T[];
  columns: Column<T>[];
  rowKey: (row: T) => string;
  label: string;
  rowHeight?: number;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  const [virtualizer] = useState(
    () =>
      new Virtualizer<HTMLDivElement, Element>({
        count: rows.length,
        getScrollElement: () => scroller.current,
        estimateSize: () => rowHeight,
        overscan: 10,
        scrollToFn: elementScroll,
        observeElementRect,
        observeElementOffset,
        onChange: () => rerender(undefined as never),
      }),
  );
  virtualizer.setOptions({ ...virtualizer.options, count: rows.length });
  // The two lifecycle hooks virtual-core documents for framework adapters (its React adapter calls the same).
  // oxlint-disable-next-line no-underscore-dangle
  useEffect(() => virtualizer._didMount(), [virtualizer]);
  // oxlint-disable-next-line no-underscore-dangle
  useLayoutEffect(() => virtualizer._willUpdate());
  const template = columns.map((c) => c.width).join(" ");
  return (
    <div role="table" aria-label={label} aria-rowcount={rows.length + 1} class="vtable">
      <div role="rowgroup">
        <div role="row" aria-rowindex={1} class="vrow vhead" style={{ gridTemplateColumns: template }}>
          {columns.map((c) => (
            <span role="columnheader" key={c.title} aria-sort={c.sort}>
              {c.header ?? c.title}
            </span>
          ))}
        </div>
      </div>
      <div ref={scroller} class="vscroll" tabIndex={0} role="rowgroup" aria-label={`${label}, scrollable`}>
        <div style={{ height: `${virtualizer.getTotalSize()}px`, position: "relative" }}>
          {virtualizer.getVirtualItems().map((item) => {
            const row = rows[item.index] as T;
            return (
              <div
                role="row"
                aria-rowindex={item.index + 2}
                key={rowKey(row)}
                class="vrow"
                style={{
                  gridTemplateColumns: template,
                  position: "absolute",
                  top: 0,
                  left: 0,
                  right: 0,
                  height: `${item.size}px`,
                  transform: `translateY(${item.start}px)`,
                }}
              >
                {columns.map((c) => (
                  <span role="cell" key={c.title}>
                    {c.cell(row)}
                  </span>
                ))}
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}
