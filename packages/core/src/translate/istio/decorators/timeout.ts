import { istioDuration } from "../durations";
import type { RouteDecorator } from "./types";

/** requestTimeout → `timeout`. */
export const timeout: RouteDecorator<"requestTimeout"> = {
  feature: "requestTimeout",
  decorate: (features) => (features.requestTimeout === undefined ? undefined : { timeout: istioDuration(features.requestTimeout) }),
};
