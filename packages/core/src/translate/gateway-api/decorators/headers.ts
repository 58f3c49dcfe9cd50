import { side as modifier } from "../../istio/decorators/headers";
import type { RuleDecorator } from "./types";

/**
 * headerManipulation → `RequestHeaderModifier` / `ResponseHeaderModifier` filters. "append" is
 * Gateway API's `add` (which appends, as Istio's `add`), not `set`.
 */
export const headers: RuleDecorator<"headerManipulation"> = {
  feature: "headerManipulation",
  decorate(features) {
    const h = features.headerManipulation;
    if (h === undefined) return undefined;
    const request = modifier(h.appendRequestHeaders, h.removeRequestHeaders);
    const response = modifier(h.appendResponseHeaders, h.removeResponseHeaders);
    if (request === undefined && response === undefined) return undefined;
    return { ...(request ? { requestHeaderModifier: request } : {}), ...(response ? { responseHeaderModifier: response } : {}) };
  },
};
