import type { Destination } from "../../api/index";

export type ServicePort = Destination["spec"]["ports"][number];

/** Istio's protocol for a port: `appProtocol`, else the port name up to the first `-` (Istio's naming convention). */
function declaredProtocol(port: ServicePort): string | undefined {
  const app = port.appProtocol?.toLowerCase();
  if (app === "kubernetes.io/h2c") return "http2";
  if (app === "kubernetes.io/ws" || app === "kubernetes.io/wss") return app.endsWith("wss") ? "https" : "http";
  if (app !== undefined && app !== "") return app;
  const prefix = port.name?.split("-")[0]?.toLowerCase();
  return prefix === "" ? undefined : prefix;
}

const SERVICE_ENTRY_PROTOCOL: Record<string, string> = {
  http: "HTTP",
  http2: "HTTP2",
  https: "HTTPS",
  grpc: "GRPC",
  "grpc-web": "GRPC",
  mongo: "MONGO",
  mysql: "TCP",
  redis: "TCP",
  tcp: "TCP",
  tls: "TLS",
};

const NOT_HTTP = new Set(["https", "tls", "tcp", "mongo", "mysql", "redis", "udp"]);

/**
 * Ports HTTP routes can apply to: TCP ports whose declared protocol is HTTP-like or undeclared
 * (Istio sniffs undeclared ones). Sorted by number. UDP/SCTP and declared TCP/TLS ports are left
 * out because Istio never runs HTTP routes on them.
 */
export function httpPorts(destination: Destination): ServicePort[] {
  return destination.spec.ports
    .filter((p) => (p.protocol === "" || p.protocol.toUpperCase() === "TCP") && !NOT_HTTP.has(declaredProtocol(p) ?? ""))
    .sort((a, b) => a.port - b.port);
}

/**
 * The ServiceEntry protocol for a port, or undefined when the Service declares none: the entry then
 * declares none either, and Istio sniffs, exactly as it does for the Service itself.
 */
export function serviceEntryProtocol(port: ServicePort): string | undefined {
  const declared = declaredProtocol(port);
  return declared === undefined ? undefined : SERVICE_ENTRY_PROTOCOL[declared];
}

/** The port name a ServiceEntry uses (names are required there): the Service's, else `port-<number>`. */
export function portName(port: ServicePort): string {
  return port.name !== undefined && port.name !== "" ? port.name : `port-${port.port}`;
}

/**
 * The pod port behind a service port when the Service says so by number; a named targetPort cannot be
 * resolved from discovery data, and none means the same number, so both give the service port.
 */
export function podPort(port: ServicePort): number {
  return typeof port.targetPort === "number" ? port.targetPort : port.port;
}

/**
 * `allowedPorts` name Service ports, but Istio and OSM authorise the port the pod receives on, so
 * each is mapped to its numeric targetPort when the Service has one; other numbers pass unchanged
 * (they may already be pod ports). Sorted, distinct.
 */
export function allowedPodPorts(destination: Destination, ports: readonly number[]): number[] {
  const mapped = ports.map((p) => {
    const sp = destination.spec.ports.find((x) => x.port === p);
    return typeof sp?.targetPort === "number" ? sp.targetPort : p;
  });
  return [...new Set(mapped)].sort((a, b) => a - b);
}
