/**
 * The reading of one Gloo document: the fields each converter keeps, drops (with a reason) or does
 * not know, a value of the wrong shape as a ShapeError, and the small helpers every converter uses.
 */

/** A Gloo or meshplane mapping, as the converters read and write it. */
export type Json = Record<string, unknown>;

/** A Gloo value of the wrong shape (a list where a mapping belongs): the document is not converted. */
export class ShapeError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

/** What a converter reads from one Gloo object: `keep` it converts (or ignores on purpose), `drop` it lists with a reason. */
export interface Shape {
  keep: readonly string[];
  drop?: Readonly<Record<string, string>>;
}

const UNKNOWN_FIELD = "not a Gloo Mesh v1 field that meshplane knows; not converted";

/** Whether the Gloo path `path` is `parent` or a field or item inside it. */
function within(path: string, parent: string): boolean {
  return path === parent || path.startsWith(`${parent}.`) || path.startsWith(`${parent}[`);
}

/** The dropped fields of one document, and the readers that record them. */
export class Conversion {
  readonly dropped: { path: string; reason: string }[] = [];

  drop(path: string, reason: string): void {
    this.dropped.push({ path, reason });
  }

  /**
   * ` after leaving out …`, naming the dropped fields at or below `path` (a field below another
   * named one is not repeated), for the error they caused; "" when nothing there was dropped.
   */
  leftOut(path: string): string {
    const paths = this.dropped.map((d) => d.path).filter((p) => within(p, path));
    const outermost = paths.filter((p) => !paths.some((q) => q !== p && within(p, q)));
    return outermost.length === 0 ? "" : ` after leaving out ${outermost.join(", ")}`;
  }

  /**
   * `value` as a mapping of the fields `shape` names; fields outside `shape.keep` are reported as
   * dropped, with their reason or as unknown, and unknown ones are not returned.
   */
  record(value: unknown, path: string, shape: Shape): Json {
    if (!isRecord(value)) throw new ShapeError(path, "must be a mapping");
    const known: Json = {};
    for (const [key, field] of Object.entries(value)) {
      const reason = shape.keep.includes(key) ? undefined : (shape.drop?.[key] ?? UNKNOWN_FIELD);
      if (reason !== undefined) this.drop(`${path}.${key}`, reason);
      if (reason !== UNKNOWN_FIELD) known[key] = field;
    }
    return known;
  }

  list(value: unknown, path: string): unknown[] {
    if (!Array.isArray(value)) throw new ShapeError(path, "must be a list");
    return value;
  }
}

/** Whether `value` is a mapping (not null, not a list). */
export function isRecord(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `object` without its undefined fields (meshplane's strict schemas have no use for them). */
export function compact(object: Json): Json {
  return Object.fromEntries(Object.entries(object).filter(([, v]) => v !== undefined));
}

/** `text` as an RE2 regex that matches exactly it. */
export function escapeRegex(text: string): string {
  return text.replace(/[\\^$.|?*+()[\]{}]/g, "\\$&");
}
