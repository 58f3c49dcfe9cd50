import { istioDuration } from "../durations";
import type { RouteDecorator } from "./types";

/** faultInjection → `fault.delay` or `fault.abort`, each with `percentage.value`. */
export const fault: RouteDecorator<"faultInjection"> = {
  feature: "faultInjection",
  decorate(features) {
    const f = features.faultInjection;
    if (f === undefined) return undefined;
    const percentage = { value: f.percentage };
    if (f.fixedDelay !== undefined) return { fault: { delay: { fixedDelay: istioDuration(f.fixedDelay), percentage } } };
    if (f.abort !== undefined) return { fault: { abort: { httpStatus: f.abort.httpStatus, percentage } } };
    return undefined;
  },
};
