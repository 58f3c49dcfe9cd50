import { compareStrings } from "../../compare";
import { istioDuration } from "../durations";

/** Sorted copy: these lists are sets, and sorting makes two policies listing them differently agree. */
function sorted(list: readonly string[] | undefined): string[] | undefined {
  return list === undefined ? undefined : [...new Set(list)].sort(compareStrings);
}
import type { RouteDecorator } from "./types";

/** corsPolicy → `corsPolicy` (`allowOrigins` as string matches; `maxAge` as a duration; lists sorted). */
export const cors: RouteDecorator<"corsPolicy"> = {
  feature: "corsPolicy",
  decorate(features) {
    const c = features.corsPolicy;
    if (c === undefined) return undefined;
    return {
      corsPolicy: {
        allowOrigins: c.allowOrigins?.map((o) => ({ ...o })).sort((a, b) => compareStrings(JSON.stringify(a), JSON.stringify(b))),
        allowMethods: sorted(c.allowMethods),
        allowHeaders: sorted(c.allowHeaders),
        exposeHeaders: sorted(c.exposeHeaders),
        maxAge: c.maxAge === undefined ? undefined : istioDuration(c.maxAge),
        allowCredentials: c.allowCredentials,
      },
    };
  },
};
