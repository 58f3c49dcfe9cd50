import { backendRef } from "./backend";
import type { RuleDecorator, RuleFields } from "./types";

type Mirror = NonNullable<RuleFields["requestMirror"]>;

/** A mirror percentage as Gateway API takes it: whole percents as `percent`, else a `fraction` of a million. */
function share(percentage: number | undefined): Pick<Mirror, "percent" | "fraction"> {
  if (percentage === undefined) return {};
  if (Number.isInteger(percentage)) return { percent: percentage };
  return { fraction: { numerator: Math.round(percentage * 10_000), denominator: 1_000_000 } };
}

/** mirror → a `RequestMirror` filter, with `percent` or `fraction` when a percentage is given (Istio's default is all requests). */
export const mirror: RuleDecorator<"mirror"> = {
  feature: "mirror",
  decorate(features, ctx) {
    const m = features.mirror;
    if (m === undefined) return undefined;
    const ref = backendRef(m.kubeService, m.port, ctx, "mirror destination");
    if (typeof ref === "string") ctx.report(ref);
    if (ref === undefined || typeof ref === "string") return undefined;
    return { requestMirror: { backendRef: ref, ...share(m.percentage) } };
  },
};
