import { type Mesh, parseDuration } from "../../../api/index";
import { istioAtLeast } from "../routing-api";
import { gatewayDuration } from "../durations";
import type { RuleDecorator } from "./types";

/** Gateway API's retry codes (HTTPRouteRetryStatusCode, v1.6): 400–599. */
const CODE = /^[45]\d\d$/;

/**
 * Why the destination's cluster would refuse an HTTPRoute rule's `retry`, as discovery read its
 * HTTPRoute CRD (docs/ambient.md#retries-and-the-crd-channel): no CRD, or one whose schema does not
 * declare `retry` (the API server refuses the whole route). Undefined when it declares it, or when the
 * agent did not report the CRD (an older agent or chart): the route is applied, as before.
 */
function crdRetryError(mesh: Mesh): string | undefined {
  const gatewayApi = mesh.spec.istio?.gatewayApi;
  if (gatewayApi === undefined || gatewayApi.httpRoute?.retry === true) return undefined;
  const fix = "install Gateway API's experimental channel (its HTTPRoute CRD declares retry), or drop retries, or set routing.api ISTIO on its VirtualMesh";
  const { httpRoute } = gatewayApi;
  if (httpRoute === undefined) return `retries: cluster ${mesh.spec.cluster} has no HTTPRoute CRD (no Gateway API installed); ${fix}`;
  const version = httpRoute.bundleVersion === undefined ? "of an unannotated version" : httpRoute.bundleVersion;
  const channel = httpRoute.channel === undefined ? "" : `, ${httpRoute.channel} channel`;
  return `retries: cluster ${mesh.spec.cluster}'s HTTPRoute CRD (Gateway API ${version}${channel}) does not declare retry, so its API server would refuse the route; ${fix}`;
}

/**
 * retries → the rule's experimental `retry {attempts, codes}` (Gateway API v1.6's experimental
 * channel; Istio implements it from 1.25) and `perTryTimeout` → `timeouts.backendRequest`, which
 * Istio makes the per-try timeout when `retry` is set. Istio retries connection failures, refused
 * streams, unavailable and cancelled, plus the codes; so `retryOn` may list status codes only, and
 * attempts must be at least 1 (the v1.6 schema). A cluster needs an HTTPRoute CRD that declares
 * `retry` (Gateway API's experimental channel, `crdRetryError`).
 */
export const retries: RuleDecorator<"retries"> = {
  feature: "retries",
  decorate(features, ctx) {
    const r = features.retries;
    if (r === undefined) return undefined;
    const errors: string[] = [];
    const mesh = ctx.model.meshOf(ctx.destination);
    if (!istioAtLeast(mesh, [1, 25])) {
      errors.push(
        `retries: Istio implements HTTPRoute retries from 1.25; mesh ${mesh.metadata.name} runs ${mesh.spec.version}: upgrade Istio, or set routing.api ISTIO on its VirtualMesh`,
      );
    }
    const crd = crdRetryError(mesh);
    if (crd !== undefined) errors.push(crd);
    if (r.attempts < 1) errors.push("retries.attempts 0: Gateway API's retry takes at least 1 attempt and cannot turn Istio's default retries off");
    const conditions = r.retryOn === undefined ? [] : r.retryOn.split(",");
    const other = conditions.filter((c) => !CODE.test(c));
    if (other.length > 0) {
      errors.push(
        `retries.retryOn ${other.join(",")}: Gateway API retries on connection failures, refused streams, unavailable and cancelled, plus the status codes listed (400-599); list status codes such as 503, or drop retryOn`,
      );
    }
    const perTry = r.perTryTimeout === undefined ? undefined : gatewayDuration(r.perTryTimeout);
    if (r.perTryTimeout !== undefined && perTry === undefined) errors.push(`retries.perTryTimeout ${r.perTryTimeout} is longer than Gateway API can write`);
    const request = features.requestTimeout === undefined ? undefined : parseDuration(features.requestTimeout);
    if (request !== undefined && r.perTryTimeout !== undefined && (parseDuration(r.perTryTimeout) ?? 0) > request) {
      errors.push("retries.perTryTimeout is longer than requestTimeout: Gateway API's timeouts.backendRequest must not exceed timeouts.request");
    }
    for (const error of errors) ctx.report(error);
    if (errors.length > 0) return undefined;
    const codes = [...new Set(conditions.map(Number))].sort((a, b) => a - b);
    return {
      retry: { attempts: r.attempts, ...(codes.length === 0 ? {} : { codes }) },
      ...(perTry === undefined ? {} : { timeouts: { backendRequest: perTry } }),
    };
  },
};
