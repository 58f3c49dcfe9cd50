import { istioDuration } from "../durations";
import type { TrafficPolicyDecorator } from "./types";

/** connectionPool → `trafficPolicy.connectionPool.{tcp,http}`. */
export const connectionPool: TrafficPolicyDecorator<"connectionPool"> = {
  feature: "connectionPool",
  decorate(features) {
    const c = features.connectionPool;
    if (c === undefined) return undefined;
    return {
      connectionPool: {
        tcp:
          c.tcp === undefined
            ? undefined
            : { maxConnections: c.tcp.maxConnections, connectTimeout: c.tcp.connectTimeout === undefined ? undefined : istioDuration(c.tcp.connectTimeout) },
        http:
          c.http === undefined
            ? undefined
            : { http1MaxPendingRequests: c.http.http1MaxPendingRequests, maxRequestsPerConnection: c.http.maxRequestsPerConnection },
      },
    };
  },
};
