import { describe, expect, it } from "vitest";
import { assert, integer, oneof, property, stringMatching, tuple } from "fast-check";
import { LABEL_KEY, duration, parseDuration } from "./common";
import { regex } from "./regex";
import { trafficPolicySpec } from "./traffic-policy";

describe("durations", () => {
  it.each([
    ["5s", 5000],
    ["250ms", 250],
    ["1m30s", 90_000],
    ["1h", 3_600_000],
    ["1.5s", 1500],
  ])("%s is %d ms", (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
    expect(duration.safeParse(text).success).toBe(true);
  });

  it.each(["", "5", "5 s", "-1s", "1d", "s", "0s", "0.5ms"])("%j is refused", (text) => {
    expect(duration.safeParse(text).success).toBe(false);
  });

  // What istiod's validation refuses: sub-millisecond precision, and more than int64 nanoseconds.
  it.each([
    ["1.5ms", "must be whole milliseconds, at least 1ms"],
    ["99999999999h", "must be at most 2562047h (what Istio can represent)"],
  ])("%j is refused: %s", (text, message) => {
    expect(duration.safeParse(text).error?.issues.map((i) => i.message)).toEqual([message]);
  });

  it.each(["2562047h", "0.001s", "1.25s"])("%j is accepted at the edges of what Istio takes", (text) => {
    expect(duration.safeParse(text).success).toBe(true);
  });
});

describe("integers Istio holds in int32", () => {
  it.each([
    [{ connectionPool: { tcp: { maxConnections: 2 ** 31 } } }, "policy.connectionPool.tcp.maxConnections"],
    [{ connectionPool: { http: { http1MaxPendingRequests: 2 ** 31 } } }, "policy.connectionPool.http.http1MaxPendingRequests"],
    [{ outlierDetection: { consecutiveErrors: 2 ** 31 } }, "policy.outlierDetection.consecutiveErrors"],
  ])("%j is refused at %s", (policy, path) => {
    const result = trafficPolicySpec.safeParse({ policy });
    expect(result.error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([[path, "must be at most 2147483647"]]);
  });

  it("2147483647 is accepted", () => {
    expect(trafficPolicySpec.safeParse({ policy: { connectionPool: { tcp: { maxConnections: 2147483647 } } } }).success).toBe(true);
  });
});

describe("regular expressions, as Envoy's RE2 runs them", () => {
  it.each(["^/api/v[0-9]+/.*", "(?i)reviews", "[a-z]{2,4}"])("%j is accepted", (text) => {
    expect(regex.safeParse(text).success).toBe(true);
  });

  it.each([
    ["(a)\\1", "back-reference"],
    ["foo(?=bar)", "lookahead"],
    ["(?<!x)y", "lookbehind"],
    ["[unclosed", "syntax error"],
  ])("%j is refused (%s), in RE2's words", (text) => {
    const message = regex.safeParse(text).error?.issues[0]?.message ?? "";
    expect(message).toMatch(/^must be an RE2 regular expression \(as Envoy runs it\): error parsing regexp: /);
  });
});

/** Kubernetes' rule as it reads (validation.IsQualifiedName), the oracle for the one regular expression. */
function kubernetesRule(key: string): boolean {
  const slash = key.lastIndexOf("/");
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (name.length === 0 || name.length > 63 || !/^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(name)) return false;
  return prefix === undefined || (prefix.length <= 253 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(prefix));
}

describe("label keys", () => {
  it.each([
    ["app", true],
    ["app.kubernetes.io/name", true],
    ["a/b", true],
    ["", false],
    ["/a", false],
    ["a/", false],
    ["a/b/c", false],
    ["-a", false],
    ["A.B/c", false],
    [`${"a".repeat(63)}`, true],
    [`${"a".repeat(64)}`, false],
    [`${"a".repeat(253)}/b`, true],
    [`${"a".repeat(254)}/b`, false],
    [`x/${"a".repeat(63)}`, true],
    [`x/${"a".repeat(64)}`, false],
  ])("%j is a label key: %s", (key, ok) => {
    expect(LABEL_KEY.test(key)).toBe(ok);
    expect(kubernetesRule(key)).toBe(ok);
  });

  it("agrees with Kubernetes' rule on generated keys", () => {
    const part = stringMatching(/^[-a-zA-Z0-9_./]{0,70}$/);
    const long = tuple(integer({ min: 240, max: 260 }), part).map(([n, tail]) => `${"a".repeat(n)}${tail}`);
    expect(() =>
      assert(
        property(oneof(part, long), (key) => LABEL_KEY.test(key) === kubernetesRule(key)),
        { numRuns: 3000, seed: 7 },
      ),
    ).not.toThrow();
  });
});
