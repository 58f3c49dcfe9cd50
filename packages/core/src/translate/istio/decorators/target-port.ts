import type { Destination } from "../../../api/index";
import { refKey } from "../../input/model";

/**
 * The port a route sends to on `target` (a trafficShift or mirror destination) when the route
 * matches `port` of `source`, the policy's destination: the explicit port if given (validated to
 * exist), else `port` itself when the target is the same service, else the target's only port.
 * Another service's port is never guessed from its number — on a different service the same number
 * may mean something else — so a multi-port target without `port` is an error naming its ports.
 */
export function targetPort(target: Destination, source: Destination, explicit: number | undefined, port: number, what: string): number | string {
  if (explicit !== undefined) return explicit;
  if (target.metadata.name === source.metadata.name) return port;
  const ports = target.spec.ports;
  if (ports.length === 1) return (ports[0] as { port: number }).port;
  const choices = ports.map((p) => (p.name === undefined ? String(p.port) : `${p.port} (${p.name})`)).join(", ");
  return `${what} ${refKey(target.spec)} has several ports (${choices}); set port to the one to send to`;
}
