/** TrafficPolicy: HTTP matchers, string matches and the policy features. */
import { type Conversion, type Json, compact, escapeRegex } from "./conversion";
import { clusterRef } from "./selectors";

/** One Gloo HTTP request matcher → meshplane's (its uri a string match, without its name). */
export function httpMatcher(value: unknown, path: string, c: Conversion): Json {
  const m = c.record(value, path, {
    keep: ["uri", "headers", "queryParameters", "method"],
    drop: { name: "meshplane routes are not named (Gloo Mesh only wrote the name into access logs)" },
  });
  const list = (field: string, keep: string[]) =>
    m[field] === undefined ? undefined : c.list(m[field], `${path}.${field}`).map((h, i) => c.record(h, `${path}.${field}[${i}]`, { keep }));
  return compact({
    uri: m.uri === undefined ? undefined : stringMatch(m.uri, `${path}.uri`, c, true),
    method: m.method,
    headers: list("headers", ["name", "value", "regex", "invertMatch"]),
    queryParameters: list("queryParameters", ["name", "value", "regex"]),
  });
}

/**
 * A Gloo StringMatch. meshplane has no `suffix`, and CORS origins have no `ignoreCase`: both become
 * an RE2 regex with the same meaning (Envoy matches the whole string, hence the leading `.*`).
 */
function stringMatch(value: unknown, path: string, c: Conversion, ignoreCaseField: boolean): Json {
  const m = c.record(value, path, { keep: ["exact", "prefix", "regex", "suffix", "ignoreCase"] });
  const ignoreCase = m.ignoreCase === true;
  if (m.regex !== undefined) {
    if (ignoreCase) c.drop(`${path}.ignoreCase`, "has no effect on a regex in Gloo Mesh either; write (?i) in the expression for a case-insensitive match");
    return { regex: m.regex };
  }
  const flag = ignoreCase ? "(?i)" : "";
  if (m.suffix !== undefined) return { regex: `${flag}.*${escapeRegex(String(m.suffix))}` };
  if (ignoreCase && !ignoreCaseField) {
    if (m.exact !== undefined) return { regex: `${flag}${escapeRegex(String(m.exact))}` };
    if (m.prefix !== undefined) return { regex: `${flag}${escapeRegex(String(m.prefix))}.*` };
  }
  return compact({ exact: m.exact, prefix: m.prefix, ignoreCase: ignoreCase && ignoreCaseField ? true : undefined });
}

const POLICY_DROPS = {
  csrf: "meshplane has no CSRF filter; configure Envoy's CSRF filter with an Istio EnvoyFilter of your own",
  rateLimit: "meshplane has no rate limiting; configure Envoy's rate-limit filter with an Istio EnvoyFilter of your own",
  extauth: "meshplane has no external authorization; use Istio's extensionProviders and a CUSTOM AuthorizationPolicy of your own",
};

/** `spec.policy`: each feature meshplane has, with Gloo's proto3 defaults made explicit; the others dropped with what to use instead. */
export function trafficPolicyFeatures(value: unknown, c: Conversion): Json {
  const path = "spec.policy";
  const p = c.record(value, path, {
    keep: ["trafficShift", "faultInjection", "requestTimeout", "retries", "corsPolicy", "mirror", "headerManipulation", "outlierDetection", "mtls"],
    drop: POLICY_DROPS,
  });
  const at = (field: string) => `${path}.${field}`;
  const pick = (field: string, keep: string[]) => (p[field] === undefined ? undefined : c.record(p[field], at(field), { keep }));
  const fault = pick("faultInjection", ["fixedDelay", "abort", "percentage"]);
  const retries = pick("retries", ["attempts", "perTryTimeout"]);
  const mirror = pick("mirror", ["kubeService", "percentage", "port"]);
  const mtlsPolicy = pick("mtls", ["istio"]);
  const istio = mtlsPolicy?.istio === undefined ? undefined : c.record(mtlsPolicy.istio, `${at("mtls")}.istio`, { keep: ["tlsMode"] });
  return compact({
    trafficShift: p.trafficShift === undefined ? undefined : trafficShift(p.trafficShift, at("trafficShift"), c),
    faultInjection:
      fault &&
      compact({
        fixedDelay: fault.fixedDelay,
        abort:
          fault.abort === undefined ? undefined : { httpStatus: c.record(fault.abort, `${at("faultInjection")}.abort`, { keep: ["httpStatus"] }).httpStatus },
        percentage: fault.percentage ?? 100, // Gloo Mesh: "if omitted all requests will be faulted"
      }),
    requestTimeout: p.requestTimeout,
    // Omitted attempts are proto3's 0 in Gloo Mesh too.
    retries: retries && compact({ attempts: retries.attempts ?? 0, perTryTimeout: retries.perTryTimeout }),
    corsPolicy: p.corsPolicy === undefined ? undefined : corsPolicy(p.corsPolicy, at("corsPolicy"), c),
    mirror:
      mirror &&
      compact({
        kubeService: mirror.kubeService === undefined ? undefined : clusterRef(mirror.kubeService, `${at("mirror")}.kubeService`, c),
        percentage: mirror.percentage,
        port: mirror.port,
      }),
    headerManipulation: pick("headerManipulation", ["appendRequestHeaders", "removeRequestHeaders", "appendResponseHeaders", "removeResponseHeaders"]),
    outlierDetection: pick("outlierDetection", ["consecutiveErrors", "interval", "baseEjectionTime", "maxEjectionPercent"]),
    // tlsMode is a proto3 enum whose zero value is DISABLE: an empty `istio: {}` meant DISABLE.
    mtls: istio && { istio: { tlsMode: istio.tlsMode ?? "DISABLE" } },
  });
}

function trafficShift(value: unknown, path: string, c: Conversion): Json | undefined {
  const shift = c.record(value, path, { keep: ["destinations"] });
  const input = c.list(shift.destinations ?? [], `${path}.destinations`);
  const elsewhere = "; until then, the remaining destinations take its share of the traffic";
  const destinations: Json[] = [];
  input.forEach((item, i) => {
    const at = `${path}.destinations[${i}]`;
    const d = c.record(item, at, {
      keep: ["weight", "kubeService"],
      drop: {
        virtualDestination: `meshplane has no VirtualDestination; shift to the kubeService of each cluster instead${elsewhere}`,
        staticDestination: `meshplane routes only to Kubernetes Services in registered clusters${elsewhere}`,
        clusterHeader: `meshplane cannot route by a header naming an Envoy cluster${elsewhere}`,
        options: "per-destination options are not supported; meshplane's headerManipulation applies to the whole route",
      },
    });
    if (d.kubeService === undefined) return;
    const k = c.record(d.kubeService, `${at}.kubeService`, { keep: ["name", "namespace", "clusterName", "subset", "port"] });
    // A lone destination needs no weight in Gloo Mesh; several without one get proto3's 0.
    const weight = d.weight ?? (input.length === 1 ? 100 : 0);
    destinations.push({ kubeService: compact({ cluster: k.clusterName, namespace: k.namespace, name: k.name, subset: k.subset, port: k.port }), weight });
  });
  if (destinations.length > 0) return { destinations };
  c.drop(path, "left out: none of its destinations can be carried over");
  return undefined;
}

function corsPolicy(value: unknown, path: string, c: Conversion): Json {
  const cors = c.record(value, path, { keep: ["allowOrigins", "allowMethods", "allowHeaders", "exposeHeaders", "maxAge", "allowCredentials"] });
  return compact({
    allowOrigins:
      cors.allowOrigins === undefined
        ? undefined
        : c.list(cors.allowOrigins, `${path}.allowOrigins`).map((o, i) => stringMatch(o, `${path}.allowOrigins[${i}]`, c, false)),
    allowMethods: cors.allowMethods,
    allowHeaders: cors.allowHeaders,
    exposeHeaders: cors.exposeHeaders,
    maxAge: cors.maxAge,
    allowCredentials: cors.allowCredentials,
  });
}
