import { compareStrings } from "../../compare";
import type { HttpRouteFields } from "../types";
import type { RouteDecorator } from "./types";

type Side = NonNullable<NonNullable<HttpRouteFields["headers"]>["request"]>;

/** Headers to add and remove, names to remove sorted (their order has no meaning); undefined when neither. */
export function side(add: Record<string, string> | undefined, remove: string[] | undefined): Side | undefined {
  const hasAdd = add !== undefined && Object.keys(add).length > 0;
  const hasRemove = remove !== undefined && remove.length > 0;
  if (!hasAdd && !hasRemove) return undefined;
  return { ...(hasAdd ? { add } : {}), ...(hasRemove ? { remove: [...remove].sort(compareStrings) } : {}) };
}

/**
 * headerManipulation → `headers.request` / `headers.response`. "append" maps to Istio `add` (which
 * appends), not `set` (which overwrites). Removed names are sorted: their order has no meaning.
 */
export const headers: RouteDecorator<"headerManipulation"> = {
  feature: "headerManipulation",
  decorate(features) {
    const h = features.headerManipulation;
    if (h === undefined) return undefined;
    const request = side(h.appendRequestHeaders, h.removeRequestHeaders);
    const response = side(h.appendResponseHeaders, h.removeResponseHeaders);
    if (request === undefined && response === undefined) return undefined;
    return { headers: { ...(request ? { request } : {}), ...(response ? { response } : {}) } };
  },
};
