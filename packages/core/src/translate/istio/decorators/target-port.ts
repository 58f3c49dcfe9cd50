import type { Destination } from "../../../api/index";
import { refKey } from "../../model";

/**
 * The port a route sends to on `target` (a trafficShift or mirror destination) when the route
 * matches `port` of the policy's destination: the explicit port if given (validated to exist),
 * else the same port number if the target has it, else the target's only port. Returns an error
 * message when none of these decides, because Istio needs a port for multi-port targets.
 */
export function targetPort(target: Destination, explicit: number | undefined, port: number, what: string): number | string {
  if (explicit !== undefined) return explicit;
  const ports = target.spec.ports;
  if (ports.some((p) => p.port === port)) return port;
  if (ports.length === 1) return (ports[0] as { port: number }).port;
  return `${what} ${refKey(target.spec)} has no port ${port} and several others; set port`;
}
