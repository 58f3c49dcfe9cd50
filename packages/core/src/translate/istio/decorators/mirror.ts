import { hostToken } from "../hosts";
import { targetPort } from "./target-port";
import type { RouteDecorator } from "./types";

/** mirror → `mirror {host, port}` and, when a percentage is given, `mirrorPercentage` (Istio's default is 100%). */
export const mirror: RouteDecorator<"mirror"> = {
  feature: "mirror",
  decorate(features, ctx) {
    const m = features.mirror;
    if (m === undefined) return undefined;
    const target = ctx.model.destinationByRef(m.kubeService);
    if (target === undefined) return undefined; // reported at policy level
    const port = targetPort(target, ctx.destination, m.port, ctx.port, "mirror destination");
    if (typeof port === "string") {
      ctx.report(port);
      return undefined;
    }
    return {
      mirror: { host: hostToken(target), port: { number: port } },
      ...(m.percentage === undefined ? {} : { mirrorPercentage: { value: m.percentage } }),
    };
  },
};
