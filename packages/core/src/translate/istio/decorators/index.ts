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
import type { RouteDecorator, TrafficPolicyDecorator } from "./types";

export type { Feature, RouteDecorator, TrafficPolicyDecorator } from "./types";
export { normalizeWeights, shiftSubsets } from "./traffic-shift";

/** Every VirtualService route feature. Listed here, not self-registered, so the set is visible in one place. */
export const ROUTE_DECORATORS: readonly RouteDecorator[] = [trafficShift, timeout, retries, fault, cors, headers, mirror];

/** Every DestinationRule feature. */
export const TRAFFIC_POLICY_DECORATORS: readonly TrafficPolicyDecorator[] = [outlierDetection, connectionPool, loadBalancer, mtls];
