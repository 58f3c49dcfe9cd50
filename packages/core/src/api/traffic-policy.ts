import { z } from "zod";
import { INT32_MAX, clientMap, dnsLabel, dnsSubdomain, duration, exactlyOne, int32Message, labelMap, percentage, port } from "./common";
import { regex, stringMatch } from "./regex";
import { destinationSelector, workloadSelector } from "./selectors";

const HTTP_METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"] as const;
export const httpMethod = z.enum(HTTP_METHODS);

/** HTTP header names are tokens (RFC 9110); Envoy lower-cases them. */
const headerName = z.string().regex(/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/, "must be an HTTP header name");

const uriMatch = z
  .strictObject({
    exact: z.string().optional(),
    prefix: z.string().optional(),
    regex: regex.optional(),
    ignoreCase: z.boolean().optional(),
  })
  .refine((m) => [m.exact, m.prefix, m.regex].filter((v) => v !== undefined).length === 1, {
    message: "set exactly one of exact, prefix or regex",
  })
  .meta(exactlyOne("exact", "prefix", "regex"));

/** `regex: true` → `value` is required (and an RE2 expression, which JSON Schema cannot say). */
const REGEX_NEEDS_VALUE = {
  if: { properties: { regex: { const: true } }, required: ["regex"] },
  // oxlint-disable-next-line unicorn/no-thenable -- JSON Schema's if/then, not a promise
  then: { required: ["value"], properties: { value: { description: "an RE2 regular expression (as Envoy runs it)" } } },
};

const headerMatcher = z
  .strictObject({
    name: headerName,
    value: z.string().optional(),
    regex: z.boolean().optional(),
    invertMatch: z.boolean().optional(),
  })
  .refine((h) => !h.regex || (h.value !== undefined && isRegex(h.value)), {
    message: "regex: true needs a value that is a valid regular expression",
    path: ["value"],
  })
  .meta(REGEX_NEEDS_VALUE);

const queryParameterMatcher = z
  .strictObject({ name: z.string().min(1), value: z.string().optional(), regex: z.boolean().optional() })
  .refine((q) => !q.regex || (q.value !== undefined && isRegex(q.value)), {
    message: "regex: true needs a value that is a valid regular expression",
    path: ["value"],
  })
  .meta(REGEX_NEEDS_VALUE);

function isRegex(text: string): boolean {
  return regex.safeParse(text).success;
}

export const httpMatcher = z.strictObject({
  uri: uriMatch.optional(),
  method: httpMethod.optional(),
  headers: z.array(headerMatcher).optional(),
  queryParameters: z.array(queryParameterMatcher).optional(),
});
export type HttpMatcher = z.infer<typeof httpMatcher>;

const shiftDestination = z.strictObject({
  kubeService: z.strictObject({
    cluster: dnsLabel,
    namespace: dnsLabel,
    name: dnsSubdomain,
    subset: labelMap.optional(),
    port: port.optional(),
  }),
  weight: z.number().int("must be an integer").min(0, "must be at least 0").max(INT32_MAX, int32Message),
});

const trafficShift = z.strictObject({
  destinations: z
    .array(shiftDestination)
    .min(1, "must list at least one destination")
    .refine((list) => list.some((d) => d.weight > 0), "at least one destination needs a weight above 0")
    .meta({ contains: { properties: { weight: { minimum: 1 } } } }),
});

const faultInjection = z
  .strictObject({
    fixedDelay: duration.optional(),
    abort: z.strictObject({ httpStatus: z.number().int().min(200, "must be an HTTP status 200-599").max(599, "must be an HTTP status 200-599") }).optional(),
    percentage: percentage,
  })
  .refine((f) => (f.fixedDelay === undefined) !== (f.abort === undefined), {
    message: "set exactly one of fixedDelay or abort",
  })
  .meta(exactlyOne("fixedDelay", "abort"));

const retries = z.strictObject({
  attempts: z.number().int("must be an integer").min(0, "must be at least 0").max(100, "must be at most 100"),
  perTryTimeout: duration.optional(),
  retryOn: z
    .string()
    .regex(/^[a-z0-9-]+(,[a-z0-9-]+)*$/, "must be a comma-separated list of retry conditions such as 5xx,reset")
    .optional(),
});

const corsPolicy = z.strictObject({
  allowOrigins: z.array(stringMatch).optional(),
  allowMethods: z.array(httpMethod).optional(),
  allowHeaders: z.array(headerName).optional(),
  exposeHeaders: z.array(headerName).optional(),
  maxAge: duration.optional(),
  allowCredentials: z.boolean().optional(),
});

const mirror = z.strictObject({
  kubeService: z.strictObject({ cluster: dnsLabel, namespace: dnsLabel, name: dnsSubdomain }),
  percentage: percentage.optional(),
  port: port.optional(),
});

const headerMap = clientMap(headerName, z.string());
const headerManipulation = z.strictObject({
  appendRequestHeaders: headerMap.optional(),
  removeRequestHeaders: z.array(headerName).optional(),
  appendResponseHeaders: headerMap.optional(),
  removeResponseHeaders: z.array(headerName).optional(),
});

const outlierDetection = z.strictObject({
  consecutiveErrors: z.number().int().min(1, "must be at least 1").max(INT32_MAX, int32Message).optional(),
  interval: duration.optional(),
  baseEjectionTime: duration.optional(),
  maxEjectionPercent: z.number().int().min(0).max(100, "must be between 0 and 100").optional(),
});

const mtls = z.strictObject({
  istio: z.strictObject({ tlsMode: z.enum(["DISABLE", "SIMPLE", "ISTIO_MUTUAL"]) }),
});

const connectionPool = z.strictObject({
  tcp: z
    .strictObject({
      maxConnections: z.number().int().min(1, "must be at least 1").max(INT32_MAX, int32Message).optional(),
      connectTimeout: duration.optional(),
    })
    .optional(),
  http: z
    .strictObject({
      http1MaxPendingRequests: z.number().int().min(1, "must be at least 1").max(INT32_MAX, int32Message).optional(),
      maxRequestsPerConnection: z.number().int().min(1, "must be at least 1").max(INT32_MAX, int32Message).optional(),
    })
    .optional(),
});

const loadBalancer = z.strictObject({
  simple: z.enum(["ROUND_ROBIN", "LEAST_REQUEST", "RANDOM"]).optional(),
  localityFailover: z.boolean().optional(),
});

export const trafficPolicyFeatures = z.strictObject({
  trafficShift: trafficShift.optional(),
  faultInjection: faultInjection.optional(),
  requestTimeout: duration.optional(),
  retries: retries.optional(),
  corsPolicy: corsPolicy.optional(),
  mirror: mirror.optional(),
  headerManipulation: headerManipulation.optional(),
  outlierDetection: outlierDetection.optional(),
  mtls: mtls.optional(),
  connectionPool: connectionPool.optional(),
  loadBalancer: loadBalancer.optional(),
});
export type TrafficPolicyFeatures = z.infer<typeof trafficPolicyFeatures>;

export const trafficPolicySpec = z.strictObject({
  sourceSelector: z.array(workloadSelector).optional(),
  destinationSelector: z.array(destinationSelector).optional(),
  httpRequestMatchers: z.array(httpMatcher).optional(),
  policy: trafficPolicyFeatures,
});
export type TrafficPolicySpec = z.infer<typeof trafficPolicySpec>;
