import { describe, expect, it } from "vitest";
import { KubeError, failureOf, failureType } from "./failure";

describe("Kubernetes failures, typed from the apiserver's status", () => {
  it.each([
    [0, "connect ECONNREFUSED 10.0.0.1:443", "transient"],
    [400, 'admission webhook "validate.istio.io" denied the request: configuration is invalid', "refused-by-admission"],
    [422, "ValidatingAdmissionPolicy 'no-wildcards' with binding 'all' denied request: hosts must not be *", "refused-by-admission"],
    [400, "the body of the request was in an unknown format", "invalid"],
    [422, 'VirtualService.networking.istio.io "reviews" is invalid: spec.hosts: Required value', "invalid"],
    [403, 'secrets "cacerts" is forbidden: User "system:serviceaccount:meshplane-system:meshplane-agent" cannot get resource "secrets"', "forbidden"],
    [403, 'admission webhook "deny.example.com" denied the request: no', "forbidden"],
    [404, 'virtualservices.networking.istio.io "reviews" not found', "not-found"],
    [409, 'Operation cannot be fulfilled on secrets "meshplane-agent-state": the object has been modified', "conflict"],
    [410, "too old resource version: 1 (5)", "expired"],
    [429, "storage is (re)initializing", "transient"],
    [500, "Internal error occurred", "transient"],
    [503, "service unavailable", "transient"],
    [415, "unsupported media type", "unexpected"],
  ] as const)("%i %s: %s", (status, message, type) => {
    expect(failureType(status, message)).toBe(type);
    expect(failureOf(new KubeError(status, message))).toEqual({ type, message });
  });

  it("keeps the type the agent gives a call it refuses itself, and calls anything else unexpected", () => {
    expect(failureOf(new KubeError(0, "Unrecognized API version and kind: v1 Nope", "not-served")).type).toBe("not-served");
    expect(failureOf(new SyntaxError("Unexpected token"))).toEqual({ type: "unexpected", message: "Unexpected token" });
  });
});
