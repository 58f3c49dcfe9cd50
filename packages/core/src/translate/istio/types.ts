/**
 * The parts of Istio's networking and security APIs meshplane generates, as type aliases (not
 * interfaces) so they fit `Record<string, unknown>` where fields are merged generically. Field
 * names are Istio's; see istio.io/latest/docs/reference/config/networking/.
 */
export type StringMatch = { exact?: string; prefix?: string; regex?: string };

export type HttpMatch = {
  uri?: StringMatch;
  ignoreUriCase?: boolean;
  method?: StringMatch;
  headers?: Record<string, StringMatch>;
  withoutHeaders?: Record<string, StringMatch>;
  queryParams?: Record<string, StringMatch>;
  port?: number;
  sourceLabels?: Record<string, string>;
  sourceNamespace?: string;
};

/** `host` holds a host token (hosts.ts) until the route is rendered for one cluster. */
export type RouteDestination = { host: string; subset?: string; port?: { number: number } };
export type WeightedDestination = { destination: RouteDestination; weight?: number };

export type HttpRouteFields = {
  route?: WeightedDestination[];
  timeout?: string;
  retries?: { attempts: number; perTryTimeout?: string; retryOn?: string };
  fault?: {
    delay?: { fixedDelay: string; percentage: { value: number } };
    abort?: { httpStatus: number; percentage: { value: number } };
  };
  corsPolicy?: {
    allowOrigins?: StringMatch[];
    allowMethods?: string[];
    allowHeaders?: string[];
    exposeHeaders?: string[];
    maxAge?: string;
    allowCredentials?: boolean;
  };
  headers?: {
    request?: { add?: Record<string, string>; remove?: string[] };
    response?: { add?: Record<string, string>; remove?: string[] };
  };
  mirror?: RouteDestination;
  mirrorPercentage?: { value: number };
};

export type HttpRoute = HttpRouteFields & { match?: HttpMatch[] };

export type TlsMode = "DISABLE" | "SIMPLE" | "ISTIO_MUTUAL";

/** DestinationRule `spec.trafficPolicy`. */
export type DestinationTrafficPolicy = {
  tls?: { mode: TlsMode };
  outlierDetection?: { consecutive5xxErrors?: number; interval?: string; baseEjectionTime?: string; maxEjectionPercent?: number };
  connectionPool?: {
    tcp?: { maxConnections?: number; connectTimeout?: string };
    http?: { http1MaxPendingRequests?: number; maxRequestsPerConnection?: number };
  };
  loadBalancer?: { simple?: "ROUND_ROBIN" | "LEAST_REQUEST" | "RANDOM"; localityLbSetting?: { enabled: boolean } };
};

export type Subset = { name: string; labels?: Record<string, string> };
