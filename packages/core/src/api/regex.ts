import { RE2JS } from "re2js";
import { z } from "zod";
import { exactlyOne } from "./common";

// A module of its own because of re2js (147 KiB minified): a function bundle that never validates a
// TrafficPolicy, the only kind with RE2 fields, leaves it out (docs/aws.md, "Function bundles").

/**
 * A regular expression as Envoy runs it: RE2 syntax (checked with a JavaScript port of RE2), so
 * back-references and lookarounds, which JavaScript accepts and Envoy refuses, are errors here —
 * with RE2's own words — instead of a config the mesh rejects.
 */
export const regex = z
  .string()
  .min(1)
  .superRefine((text, ctx) => {
    try {
      RE2JS.compile(text);
    } catch (error) {
      ctx.addIssue({ code: "custom", message: `must be an RE2 regular expression (as Envoy runs it): ${(error as Error).message}` });
    }
  })
  .meta({ description: "an RE2 regular expression (as Envoy runs it)" });

/** Exactly one of exact, prefix or regex. */
export const stringMatch = z
  .strictObject({ exact: z.string().optional(), prefix: z.string().optional(), regex: regex.optional() })
  .refine((m) => [m.exact, m.prefix, m.regex].filter((v) => v !== undefined).length === 1, {
    message: "set exactly one of exact, prefix or regex",
  })
  .meta(exactlyOne("exact", "prefix", "regex"));
export type StringMatch = z.infer<typeof stringMatch>;
