/** Shared pieces: loading, empty and error states, state badges, and the data hook every page uses. */
import type { ComponentChildren } from "preact";
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { ApiError } from "./api";

export type Async<T> =
  | { status: "loading"; data?: undefined; error?: undefined }
  | { status: "ok"; data: T; error?: undefined }
  | { status: "error"; data?: undefined; error: Error };

/**
 * Runs `load` when a dependency changes and whenever `reload` is called; a newer run wins over an
 * older one still in flight (each gets its own AbortSignal).
 */
export function useAsync<T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[]): Async<T> & { reload: () => void } {
  const [state, setState] = useState<Async<T>>({ status: "loading" });
  const [tick, setTick] = useState(0);
  const current = useRef<AbortController | null>(null);
  useEffect(() => {
    current.current?.abort();
    const controller = new AbortController();
    current.current = controller;
    setState((s) => (s.status === "ok" ? s : { status: "loading" }));
    load(controller.signal).then(
      (data) => !controller.signal.aborted && setState({ status: "ok", data }),
      (error: unknown) => !controller.signal.aborted && setState({ status: "error", error: error instanceof Error ? error : new Error(String(error)) }),
    );
    return () => controller.abort();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="state loading" role="status" aria-live="polite">
      <span class="spinner" aria-hidden="true" /> Loading {what}…
    </p>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="state empty">{children}</p>;
}

export function ErrorState({ error, retry }: { error: Error; retry?: () => void }) {
  const fields = error instanceof ApiError ? error.errors : [];
  return (
    <div class="state error" role="alert">
      <p>
        <strong>{error instanceof ApiError ? `The control plane answered ${error.status}` : "Something went wrong"}:</strong> {error.message}
      </p>
      {fields.length > 0 && (
        <ul>
          {fields.map((f) => (
            <li key={f.path}>
              <code>{f.path}</code>: {f.message}
            </li>
          ))}
        </ul>
      )}
      {retry && (
        <button type="button" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}

/** Renders the three states of an Async; `children` gets the data. */
export function Loaded<T>({ value, what, children }: { value: Async<T> & { reload?: () => void }; what: string; children: (data: T) => ComponentChildren }) {
  if (value.status === "loading") return <Loading what={what} />;
  if (value.status === "error") return <ErrorState error={value.error} {...(value.reload ? { retry: value.reload } : {})} />;
  return <>{children(value.data)}</>;
}

const STATE_CLASS: Record<string, string> = { ACCEPTED: "ok", INVALID: "bad", FAILED: "bad", PENDING: "wait" };

export function StateBadge({ state }: { state: string }) {
  return <span class={`badge ${STATE_CLASS[state] ?? "wait"}`}>{state}</span>;
}

/** A table with a header row; `children` are its body rows. Wide tables scroll sideways on their own. */
export function Table({ head, children }: { head: ComponentChildren[]; children: ComponentChildren }) {
  return (
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            {head.map((h, i) => (
              <th scope="col" key={i}>
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/** The errors a status gives, one per line; nothing when there are none. */
export function Errors({ errors }: { errors: readonly string[] | undefined }) {
  if (!errors || errors.length === 0) return null;
  return (
    <ul class="errors">
      {errors.map((e) => (
        <li key={e}>{e}</li>
      ))}
    </ul>
  );
}

export function Section({ title, children, id }: { title: string; children: ComponentChildren; id?: string }) {
  const headingId = `h-${id ?? title.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`;
  return (
    <section aria-labelledby={headingId}>
      <h2 id={headingId}>{title}</h2>
      {children}
    </section>
  );
}

/**
 * Calls `reload` every `ms` while the page is visible (a hidden tab reads nothing), and at once when
 * it is shown again after missing a turn.
 */
export function useWhileVisible(reload: () => void, ms: number): void {
  useEffect(() => {
    let last = Date.now();
    const tick = () => {
      if (document.visibilityState !== "visible") return;
      last = Date.now();
      reload();
    };
    const timer = setInterval(tick, ms);
    const shown = () => Date.now() - last >= ms && tick();
    document.addEventListener("visibilitychange", shown);
    return () => {
      clearInterval(timer);
      document.removeEventListener("visibilitychange", shown);
    };
  }, [reload, ms]);
}

/** Sets the document title, so each page is announced and findable in history. */
export function useTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · meshplane`;
  }, [title]);
}
