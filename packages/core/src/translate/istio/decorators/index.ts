import { connectionPool } from "./connection-pool";
import { cors } from "./cors";
import { fault } from "./fault";
import { headers } from "./headers";
import { loadBalancer } from "./load-balancer";
import { mirror } from "./mirror";
import { mtls } from "./mtls";
import { outlierDetection } from "./outlier-detection";
import { retries } from "./retries";
import { timeout } from "./timeout";
import { trafficShift } from "./traffic-shift";
import type { Feature, RouteDecorator, TrafficPolicyDecorator } from "./types";

export type { DecoratorContext, Feature, RouteContext, RouteDecorator, TrafficPolicyDecorator } from "./types";
export { connectionPool, loadBalancer, mtls, outlierDetection };
export { normalizeWeights, shiftSubsets } from "./traffic-shift";

/** A feature's Istio handler: it writes either VirtualService route fields or DestinationRule ones. */
type IstioHandler<F extends Feature> =
  | { readonly route: RouteDecorator<F>; readonly trafficPolicy?: never }
  | { readonly trafficPolicy: TrafficPolicyDecorator<F>; readonly route?: never };

/**
 * The one Istio handler of every TrafficPolicy feature, listed here rather than self-registered so
 * the set is visible in one place. The mapped type keeps the API honest: a feature added to the
 * schema (api/traffic-policy.ts) does not compile until it has a handler here, a decorator fits only
 * under the feature it names, and a key holds one handler. Decorators run in this order.
 */
const HANDLERS: { readonly [F in Feature]-?: IstioHandler<F> } = {
  trafficShift: { route: trafficShift },
  requestTimeout: { route: timeout },
  retries: { route: retries },
  faultInjection: { route: fault },
  corsPolicy: { route: cors },
  headerManipulation: { route: headers },
  mirror: { route: mirror },
  outlierDetection: { trafficPolicy: outlierDetection },
  connectionPool: { trafficPolicy: connectionPool },
  loadBalancer: { trafficPolicy: loadBalancer },
  mtls: { trafficPolicy: mtls },
};

const handlers: readonly IstioHandler<Feature>[] = Object.values(HANDLERS);

/** Every VirtualService route feature's decorator. */
export const ROUTE_DECORATORS: readonly RouteDecorator[] = handlers.flatMap((h) => (h.route === undefined ? [] : [h.route]));

/** Every DestinationRule feature's decorator. */
export const TRAFFIC_POLICY_DECORATORS: readonly TrafficPolicyDecorator[] = handlers.flatMap((h) => (h.trafficPolicy === undefined ? [] : [h.trafficPolicy]));
