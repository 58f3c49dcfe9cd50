import { istioDuration } from "../durations";
import type { RouteDecorator } from "./types";

/** retries → `retries {attempts, perTryTimeout, retryOn}`. */
export const retries: RouteDecorator<"retries"> = {
  feature: "retries",
  decorate(features) {
    const r = features.retries;
    if (r === undefined) return undefined;
    return {
      retries: {
        attempts: r.attempts,
        ...(r.perTryTimeout === undefined ? {} : { perTryTimeout: istioDuration(r.perTryTimeout) }),
        ...(r.retryOn === undefined ? {} : { retryOn: r.retryOn }),
      },
    };
  },
};
