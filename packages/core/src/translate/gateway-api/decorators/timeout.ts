import { gatewayDuration } from "../durations";
import type { RuleDecorator } from "./types";

/** requestTimeout → `timeouts.request`. */
export const timeout: RuleDecorator<"requestTimeout"> = {
  feature: "requestTimeout",
  decorate(features, ctx) {
    if (features.requestTimeout === undefined) return undefined;
    const request = gatewayDuration(features.requestTimeout);
    if (request === undefined) ctx.report(`requestTimeout ${features.requestTimeout} is longer than Gateway API can write (99999h)`);
    return request === undefined ? undefined : { timeouts: { request } };
  },
};
