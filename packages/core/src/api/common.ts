import { z } from "zod";

/**
 * The apiVersion of every user document. Here, not in resource.ts, because whatever imports
 * resource.ts builds every document schema (TrafficPolicy's, with re2js, among them), and the
 * store's versioning needs the string alone.
 */
export const API_VERSION = "meshplane.dev/v1";

/** DNS-1123 label: the rule for every user resource name and Kubernetes namespace/name we reference. */
export const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
export const dnsLabel = z
  .string()
  .max(63, "must be at most 63 characters")
  .regex(DNS_LABEL, "must be a DNS-1123 label (lower-case letters, digits and '-', starting and ending with a letter or digit)");

/** DNS-1123 subdomain, used for Kubernetes object names (Services may be subdomains). */
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
export const dnsSubdomain = z.string().max(253, "must be at most 253 characters").regex(DNS_SUBDOMAIN, "must be a DNS-1123 subdomain");

/**
 * A Kubernetes label key (qualified name): an optional DNS-subdomain prefix of at most 253 characters
 * and `/`, then a name of at most 63. One regular expression (the lengths as lookaheads), so the
 * OpenAPI document carries the very rule the server applies.
 */
export const LABEL_KEY =
  /^(?:(?=[^/]{1,253}\/)[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*\/)?(?=[^/]{1,63}$)[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const labelKey = z.string().regex(LABEL_KEY, "must be a Kubernetes label key ([prefix/]name)");
/** A Kubernetes label value: at most 63 characters, alphanumerics with `-`, `_` and `.` inside; may be empty. */
export const labelValue = z
  .string()
  .max(63, "must be at most 63 characters")
  .regex(/^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/, "must be a Kubernetes label value");

/** JSON Schema for "exactly one of these fields", for objects whose `.refine` says so. */
export const exactlyOne = (...fields: string[]) => ({ oneOf: fields.map((f) => ({ required: [f] })) });

/**
 * A map whose keys a client chose (labels, annotations, selectors, headers): every key is data. Zod's
 * own record skips a `__proto__` key without a word and yields a plain object, whose inherited names
 * (`constructor`, `toString`, …) then read as if set; this one checks every own key — `__proto__`
 * included — against `key`, and yields an object with no prototype, so `map[k]` is only ever what the
 * client sent. The OpenAPI document describes it as the record it is.
 */
export function clientMap<V extends z.ZodType>(key: z.ZodType<string, string>, value: V) {
  const documented = z.record(key, value);
  const { $schema: _, ...schema } = z.toJSONSchema(documented, { unrepresentable: "any", target: "draft-2020-12" });
  // Typed as the record it documents (clients' and fixtures' input types); checked as anything.
  const parse = z.transform((given: Record<string, z.input<V>>, ctx) => {
    const input: unknown = given;
    if (typeof input !== "object" || input === null || Array.isArray(input)) {
      ctx.issues.push({ code: "invalid_type", expected: "record", input, message: "must be an object of string keys" });
      return z.NEVER;
    }
    const out = Object.create(null) as Record<string, z.output<V>>;
    for (const [k, v] of Object.entries(input)) {
      const keyResult = key.safeParse(k);
      if (!keyResult.success) {
        for (const issue of keyResult.error.issues)
          ctx.issues.push({ code: "custom", input: k, path: [k], message: `key ${JSON.stringify(k)}: ${issue.message}` });
        continue;
      }
      const valueResult = value.safeParse(v);
      if (!valueResult.success) {
        for (const issue of valueResult.error.issues) ctx.issues.push({ code: "custom", input: v, path: [k, ...issue.path], message: issue.message });
        continue;
      }
      out[keyResult.data] = valueResult.data as z.output<V>;
    }
    return out;
  });
  return z.pipe(parse, z.custom<Record<string, z.output<V>>>(() => true).meta(schema));
}

/** Kubernetes-style label map, validated key by key. */
export const labelMap = clientMap(labelKey, labelValue);

const DURATION = /^(\d+(\.\d+)?(h|ms|m|s))+$/;
const UNIT_MS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };

/**
 * Parses a Go-style duration ("5s", "250ms", "1m30s") to milliseconds.
 * Returns undefined for anything that is not a well-formed positive duration.
 */
export function parseDuration(text: string): number | undefined {
  if (!DURATION.test(text)) return undefined;
  let total = 0;
  for (const part of text.matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s)/g)) {
    total += Number(part[1]) * (UNIT_MS[part[2] as string] as number);
  }
  return total;
}

/**
 * The longest duration Istio accepts: it reads durations as Go's time.Duration (int64 nanoseconds),
 * about 292 years; a longer one saturates and istiod's validation rejects it.
 */
export const MAX_DURATION_MS = 9_223_372_036_854;

/**
 * A positive duration string as Istio and Envoy accept it: whole milliseconds (istiod rejects finer
 * precision), at least 1 ms and at most MAX_DURATION_MS.
 */
export const duration = z
  .string()
  .regex(DURATION, "must be a duration such as 5s, 250ms or 1m30s")
  .refine((text) => {
    const ms = parseDuration(text);
    return ms === undefined || (ms >= 1 && Math.abs(ms - Math.round(ms)) < 1e-6);
  }, "must be whole milliseconds, at least 1ms")
  .refine((text) => (parseDuration(text) ?? 0) <= MAX_DURATION_MS, "must be at most 2562047h (what Istio can represent)")
  // What JSON Schema cannot say; the pattern above is the syntax.
  .meta({ description: "a duration such as 5s, 250ms or 1m30s: in all whole milliseconds, at least 1ms, at most 2562047h" });

/** What Istio's int32 fields (connection limits, weights) can hold. */
export const INT32_MAX = 2_147_483_647;
export const int32Message = `must be at most ${INT32_MAX}`;

export const percentage = z.number().min(0, "must be between 0 and 100").max(100, "must be between 0 and 100");
export const port = z.number().int("must be an integer").min(1, "must be between 1 and 65535").max(65535, "must be between 1 and 65535");

/** A reference to a Kubernetes Service in a registered cluster. */
export const serviceRef = z.strictObject({ cluster: dnsLabel, namespace: dnsLabel, name: dnsSubdomain });
export type ServiceRef = z.infer<typeof serviceRef>;

export const objectRef = z.strictObject({ name: dnsSubdomain });
