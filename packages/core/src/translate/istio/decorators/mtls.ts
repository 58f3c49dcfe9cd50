import type { TrafficPolicyDecorator } from "./types";

/** mtls.istio.tlsMode → `trafficPolicy.tls.mode` (the DestinationRule defaults to ISTIO_MUTUAL without it). */
export const mtls: TrafficPolicyDecorator<"mtls"> = {
  feature: "mtls",
  decorate: (features) => (features.mtls === undefined ? undefined : { tls: { mode: features.mtls.istio.tlsMode } }),
};
