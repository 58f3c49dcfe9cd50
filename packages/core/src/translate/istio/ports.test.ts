import { describe, expect, it } from "vitest";
import type { Destination } from "../../api/index";
import { allowedPodPorts, httpPorts, serviceEntryProtocol } from "./ports";

function destination(ports: Destination["spec"]["ports"]): Destination {
  return {
    kind: "Destination",
    metadata: { name: "d", cluster: "c" },
    spec: { name: "d", namespace: "n", cluster: "c", mesh: "m", labels: {}, selector: {}, ports, subsets: {}, endpoints: [], workloads: [] },
  };
}

describe("httpPorts", () => {
  it("keeps HTTP-like and undeclared TCP ports, drops declared non-HTTP and UDP ports", () => {
    const d = destination([
      { name: "tcp-db", port: 5432, protocol: "TCP" },
      { name: "http", port: 80, protocol: "TCP" },
      { port: 8080, protocol: "TCP" },
      { name: "dns", port: 53, protocol: "UDP" },
      { name: "web", port: 81, protocol: "TCP", appProtocol: "https" },
      { name: "grpc-api", port: 9090, protocol: "TCP" },
    ]);
    expect(httpPorts(d).map((p) => p.port)).toEqual([80, 8080, 9090]);
  });
});

describe("serviceEntryProtocol", () => {
  it.each([
    [{ name: "http-web", port: 1, protocol: "TCP" }, "HTTP"],
    [{ name: "grpc", port: 1, protocol: "TCP" }, "GRPC"],
    [{ name: "x", port: 1, protocol: "TCP", appProtocol: "kubernetes.io/h2c" }, "HTTP2"],
    [{ name: "tcp-db", port: 1, protocol: "TCP" }, "TCP"],
    [{ name: "mysql", port: 1, protocol: "TCP" }, "TCP"],
    [{ port: 1, protocol: "TCP" }, undefined],
    [{ name: "custom", port: 1, protocol: "TCP" }, undefined],
  ])("%j → %s", (port, expected) => {
    expect(serviceEntryProtocol(port)).toBe(expected);
  });
});

describe("allowedPodPorts", () => {
  it("maps service ports to numeric target ports and passes others through", () => {
    const d = destination([
      { name: "http", port: 80, protocol: "TCP", targetPort: 8080 },
      { name: "named", port: 81, protocol: "TCP", targetPort: "web" },
    ]);
    expect(allowedPodPorts(d, [81, 80, 9999, 80])).toEqual([81, 8080, 9999]);
  });
});
