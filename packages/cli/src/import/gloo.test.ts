import { describe, expect, it } from "vitest";
import { formatDocuments, formatReport, importGloo } from "./gloo";

/** One Gloo document as YAML; `body` is everything below `kind`, indented as at the top level. */
function gloo(kind: string, name: string, namespace: string | undefined, body: string): string {
  const ns = namespace === undefined ? "" : `\n  namespace: ${namespace}`;
  return `apiVersion: networking.mesh.gloo.solo.io/v1\nkind: ${kind}\nmetadata:\n  name: ${name}${ns}\n${body}\n`;
}

const timeout = "spec:\n  policy:\n    requestTimeout: 1s";
const names = (text: string) => importGloo(text).documents.map((d) => `${d.kind}/${d.metadata.name}`);

describe("importGloo: documents and names", () => {
  it("returns nothing for empty input and skips empty documents", () => {
    expect(importGloo("")).toEqual({ documents: [], dropped: [], errors: [] });
    expect(names(`---\n${gloo("TrafficPolicy", "a", "ns", timeout)}---\n`)).toEqual(["TrafficPolicy/a"]);
  });

  it("is a function of its input: the same text gives the same result", () => {
    const text = [gloo("TrafficPolicy", "a", "x", timeout), gloo("TrafficPolicy", "a", "y", timeout)].join("---\n");
    expect(importGloo(text)).toEqual(importGloo(text));
  });

  it.each([
    ["keeps a unique name", [["a", "x"]], ["TrafficPolicy/a"]],
    [
      "suffixes every document of a clash with its namespace",
      [
        ["a", "x"],
        ["a", "y"],
        ["b", "y"],
      ],
      ["TrafficPolicy/a-x", "TrafficPolicy/a-y", "TrafficPolicy/b"],
    ],
    [
      "reads a missing namespace as default when suffixing",
      [
        ["a", undefined],
        ["a", "y"],
      ],
      ["TrafficPolicy/a-default", "TrafficPolicy/a-y"],
    ],
    ["makes a dotted, upper-case name a DNS label", [["Reviews.V2", "x"]], ["TrafficPolicy/reviews-v2"]],
  ] as const)("%s", (_, docs, expected) => {
    expect(names(docs.map(([name, ns]) => gloo("TrafficPolicy", name, ns, timeout)).join("---\n"))).toEqual(expected);
  });

  it("reports a duplicate on the later document and keeps the first", () => {
    const result = importGloo([gloo("TrafficPolicy", "a", "x", timeout), gloo("TrafficPolicy", "a", "x", timeout)].join("---\n"));
    expect(result.documents.map((d) => d.metadata.name)).toEqual(["a"]);
    expect(result.errors).toEqual([
      {
        document: "TrafficPolicy x/a (documents[1])",
        message: "meshplane name a is already taken by TrafficPolicy x/a (documents[0]); rename one of them before importing",
      },
    ]);
  });

  it("reads a kubectl List item by item and names items by their place in it", () => {
    const list = `apiVersion: v1\nkind: List\nitems:\n  - apiVersion: apps/v1\n    kind: Deployment\n    metadata: {name: d}\n  - apiVersion: networking.mesh.gloo.solo.io/v1\n    kind: AccessPolicy\n    metadata: {name: p}\n    spec: {allowedPorts: [80], color: blue}\n`;
    expect(importGloo(list)).toEqual({
      documents: [{ apiVersion: "meshplane.dev/v1", kind: "AccessPolicy", metadata: { name: "p" }, spec: { allowedPorts: [80] } }],
      dropped: [
        { document: "AccessPolicy p (documents[0].items[1])", path: "spec.color", reason: "not a Gloo Mesh v1 field that meshplane knows; not converted" },
      ],
      errors: [
        {
          document: "Deployment d (documents[0].items[0])",
          message: "not Gloo Mesh v1 networking YAML (apiVersion apps/v1, kind Deployment); only networking.mesh.gloo.solo.io/v1 is imported",
        },
      ],
    });
  });

  it("carries valid labels and drops annotations", () => {
    const text = gloo("AccessPolicy", "p", "x", "spec: {}").replace("  name: p", "  name: p\n  labels: {team: a}\n  annotations: {note: b}");
    const result = importGloo(text);
    expect(result.documents[0]?.metadata).toEqual({ name: "p", labels: { team: "a" } });
    expect(result.dropped.map((d) => d.path)).toEqual(["metadata.annotations"]);
  });
});

/** The spec the importer makes of one Gloo document of `kind` with `body`, or its first error. */
function spec(kind: string, body: string): unknown {
  const result = importGloo(gloo(kind, "p", "x", body));
  return result.documents[0]?.spec ?? result.errors[0]?.message;
}

describe("importGloo: field conversions", () => {
  it.each([
    ["suffix → an escaped whole-string regex", "{suffix: a+b(c).json}", { regex: ".*a\\+b\\(c\\)\\.json" }],
    ["suffix with ignoreCase → (?i)", "{suffix: /V1, ignoreCase: true}", { regex: "(?i).*/V1" }],
    ["prefix with ignoreCase stays a prefix", "{prefix: /Api, ignoreCase: true}", { prefix: "/Api", ignoreCase: true }],
    ["ignoreCase: false is the default", "{exact: /a, ignoreCase: false}", { exact: "/a" }],
  ])("uri: %s", (_, uri, expected) => {
    expect(spec("TrafficPolicy", `spec:\n  httpRequestMatchers: [{uri: ${uri}}]\n  policy: {requestTimeout: 1s}`)).toMatchObject({
      httpRequestMatchers: [{ uri: expected }],
    });
  });

  it.each([
    [
      "faultInjection without percentage faults every request",
      "faultInjection: {abort: {httpStatus: 503}}",
      { faultInjection: { abort: { httpStatus: 503 }, percentage: 100 } },
    ],
    ["retries without attempts is proto3's 0", "retries: {perTryTimeout: 1s}", { retries: { attempts: 0, perTryTimeout: "1s" } }],
    ["mtls istio: {} is proto3's DISABLE", "mtls: {istio: {}}", { mtls: { istio: { tlsMode: "DISABLE" } } }],
    [
      "a lone shift destination without weight takes it all",
      "trafficShift: {destinations: [{kubeService: {name: r, namespace: b, clusterName: c}}]}",
      { trafficShift: { destinations: [{ kubeService: { cluster: "c", namespace: "b", name: "r" }, weight: 100 }] } },
    ],
  ])("policy: %s", (_, policy, expected) => {
    expect(spec("TrafficPolicy", `spec:\n  policy: {${policy}}`)).toEqual({ policy: expected });
  });

  it("fails a shift whose destinations all lack a weight, as meshplane would", () => {
    expect(
      spec(
        "TrafficPolicy",
        "spec:\n  policy:\n    trafficShift: {destinations: [{kubeService: {name: r, namespace: b, clusterName: c}}, {kubeService: {name: s, namespace: b, clusterName: c}}]}",
      ),
    ).toBe(
      "the converted document is not a valid meshplane TrafficPolicy: spec.policy.trafficShift.destinations: at least one destination needs a weight above 0",
    );
  });

  it.each([
    ["default lifetime (365 days)", "{secretRotationGracePeriodRatio: 0.1}", { rotateBeforeDays: 37 }],
    ["given lifetime", "{ttlDays: 100, secretRotationGracePeriodRatio: 0.25}", { ttlDays: 100, rotateBeforeDays: 25 }],
  ])("intermediate rotation ratio → rotateBeforeDays: %s", (_, options, expected) => {
    expect(
      spec("VirtualMesh", `spec:\n  meshes: [{name: m, namespace: gloo-mesh}]\n  mtlsConfig: {shared: {intermediateCertOptions: ${options}}}`),
    ).toMatchObject({ meshes: [{ name: "m" }], mtlsConfig: { shared: { intermediateCertOptions: expected } } });
  });

  it.each([
    ["an empty identity selector allows any source", "[{kubeIdentityMatcher: {namespaces: [a]}}, {}]", undefined],
    [
      "service accounts win over a matcher in the same selector",
      "[{kubeIdentityMatcher: {namespaces: [a]}, kubeServiceAccountRefs: {serviceAccounts: [{name: s, namespace: a}]}}]",
      [{ kubeServiceAccountRefs: { serviceAccounts: [{ namespace: "a", name: "s" }] } }],
    ],
    [
      "a nameless service account is its namespace",
      "[{kubeServiceAccountRefs: {serviceAccounts: [{namespace: a}]}}]",
      [{ kubeIdentityMatcher: { namespaces: ["a"] } }],
    ],
  ])("access sources: %s", (_, selectors, expected) => {
    expect(spec("AccessPolicy", `spec:\n  sourceSelector: ${selectors}`)).toEqual(expected === undefined ? {} : { sourceSelector: expected });
  });

  it("never widens access: a source list with nothing left is an error", () => {
    expect(spec("AccessPolicy", "spec:\n  sourceSelector: [{kubeServiceAccountRefs: {serviceAccounts: [{name: s}]}}]")).toBe(
      "spec.sourceSelector: no source selector is left after leaving out spec.sourceSelector[0].kubeServiceAccountRefs.serviceAccounts[0], and an empty list would allow any source; not imported",
    );
  });
});

describe("importGloo: a document that ends as an error", () => {
  const csrfOnly = gloo(
    "TrafficPolicy",
    "p",
    "x",
    "spec:\n  policy:\n    csrf: {filterEnabled: true}\n    rateLimit: {ratelimitServerConfigSelector: {namespaces: [gloo-mesh]}}",
  );
  const csrf = "meshplane has no CSRF filter; configure Envoy's CSRF filter with an Istio EnvoyFilter of your own";

  it("still reports every field it could not carry over, and the error names them", () => {
    const result = importGloo(csrfOnly);
    expect(result.documents).toEqual([]);
    expect(result.dropped.map((d) => [d.document, d.path])).toEqual([
      ["TrafficPolicy x/p (documents[0])", "spec.policy.csrf"],
      ["TrafficPolicy x/p (documents[0])", "spec.policy.rateLimit"],
    ]);
    expect(result.errors).toEqual([
      {
        document: "TrafficPolicy x/p (documents[0])",
        message: "spec.policy: nothing meshplane can apply is left in the policy after leaving out spec.policy.csrf, spec.policy.rateLimit; not imported",
      },
    ]);
  });

  it("prints those fields with their reasons just before the error", () => {
    const text = [gloo("TrafficPolicy", "a", "x", `${timeout}\n    extauth: {}`), csrfOnly.replace("name: p", "name: b")].join("---\n");
    expect(formatReport(importGloo(text)).split("\n")).toEqual([
      expect.stringMatching(/^TrafficPolicy x\/a \(documents\[0\]\): spec\.policy\.extauth: /),
      `TrafficPolicy x/b (documents[1]): spec.policy.csrf: ${csrf}`,
      expect.stringMatching(/^TrafficPolicy x\/b \(documents\[1\]\): spec\.policy\.rateLimit: meshplane has no rate limiting; /),
      expect.stringMatching(/^TrafficPolicy x\/b \(documents\[1\]\): error: spec\.policy: nothing meshplane can apply/),
      "",
    ]);
  });

  it.each([
    [
      "sources that were all JWT matchers",
      "AccessPolicy",
      'spec:\n  sourceSelector: [{requestIdentityMatcher: {requestPrincipals: ["*"]}}]',
      "spec.sourceSelector[0].requestIdentityMatcher",
      "no source selector is left after leaving out spec.sourceSelector[0].requestIdentityMatcher,",
    ],
    [
      "destinations that were all empty selectors",
      "TrafficPolicy",
      "spec:\n  destinationSelector: [{}]\n  policy: {requestTimeout: 1s}",
      "spec.destinationSelector[0]",
      "no selector is left after leaving out spec.destinationSelector[0],",
    ],
    [
      "an invalid converted document",
      "TrafficPolicy",
      "spec:\n  httpRequestMatchers: [{name: json, uri: {prefix: /}}]\n  policy: {retries: {attempts: 150}}",
      "spec.httpRequestMatchers[0].name",
      "must be at most 100",
    ],
    [
      "the wrong shape further on",
      "TrafficPolicy",
      "spec:\n  routeSelector: [{}]\n  destinationSelector: {kubeServiceMatcher: {}}",
      "spec.routeSelector",
      "spec.destinationSelector: must be a list",
    ],
  ])("keeps the fields of %s", (_, kind, body, path, message) => {
    const result = importGloo(gloo(kind, "p", "x", body));
    expect(result.documents).toEqual([]);
    expect(result.dropped.map((d) => d.path)).toEqual([path]);
    expect(result.errors[0]?.message).toContain(message);
  });

  it("names the outermost field left out, and reports the ones inside it", () => {
    const result = importGloo(
      gloo(
        "TrafficPolicy",
        "p",
        "x",
        "spec:\n  policy: {trafficShift: {destinations: [{virtualDestination: {name: reviews-global, namespace: bookinfo}, weight: 100}]}}",
      ),
    );
    expect(result.dropped.map((d) => d.path)).toEqual(["spec.policy.trafficShift.destinations[0].virtualDestination", "spec.policy.trafficShift"]);
    expect(result.errors[0]?.message).toBe(
      "spec.policy: nothing meshplane can apply is left in the policy after leaving out spec.policy.trafficShift; not imported",
    );
  });

  it("keeps the fields of a document whose name is taken", () => {
    const result = importGloo([gloo("TrafficPolicy", "a", "x", timeout), gloo("TrafficPolicy", "a", "x", `${timeout}\n    csrf: {}`)].join("---\n"));
    expect(result.errors.map((e) => e.document)).toEqual(["TrafficPolicy x/a (documents[1])"]);
    expect(result.dropped).toEqual([{ document: "TrafficPolicy x/a (documents[1])", path: "spec.policy.csrf", reason: csrf }]);
  });
});

describe("importGloo: VirtualMeshes of Gloo Mesh 1.0 and 1.1", () => {
  const meshes = "  meshes: [{name: istiod-istio-system-cluster-1, namespace: gloo-mesh}, {name: istiod-istio-system-cluster-2, namespace: gloo-mesh}]";
  const virtualMesh = (body: string) => importGloo(gloo("VirtualMesh", "vm", "gloo-mesh", `spec:\n${meshes}\n${body}`));

  it.each([
    ["a generated root with no settings", "  mtlsConfig: {shared: {rootCertificateAuthority: {generated: {}}}}", { generated: { keyAlgorithm: "RSA_4096" } }],
    [
      "a generated root with a TTL only",
      "  mtlsConfig: {shared: {rootCertificateAuthority: {generated: {ttlDays: 730}}}}",
      { generated: { ttlDays: 730, keyAlgorithm: "RSA_4096" } },
    ],
    [
      "rsaKeySizeBytes 0, proto3's unset",
      "  mtlsConfig: {shared: {rootCertificateAuthority: {generated: {rsaKeySizeBytes: 0}}}}",
      { generated: { keyAlgorithm: "RSA_4096" } },
    ],
    ["shared trust that names no CA", "  mtlsConfig: {shared: {}}", { generated: { keyAlgorithm: "RSA_4096" } }],
    [
      "an explicit 2048",
      "  mtlsConfig: {shared: {rootCertificateAuthority: {generated: {rsaKeySizeBytes: 2048}}}}",
      { generated: { keyAlgorithm: "RSA_2048" } },
    ],
  ])("keeps Gloo Mesh's RSA 4096 root key: %s", (_, body, root) => {
    const result = virtualMesh(`${body}\n  federation: {selectors: [{}]}`);
    expect(result.documents[0]?.spec).toMatchObject({ mtlsConfig: { shared: { rootCertificateAuthority: root } } });
    expect(result.dropped).toEqual([]);
  });

  it("converts Gloo Mesh 1.1's eastWestIngressGatewaySelectors and reports what meshplane cannot restrict", () => {
    const result = virtualMesh(
      [
        "  federation:",
        "    selectors: [{}]",
        "    eastWestIngressGatewaySelectors:",
        "      - destinationSelectors: [{kubeServiceMatcher: {labels: {istio: eastwestgateway}, namespaces: [istio-system]}}]",
        "        gatewayTlsPortName: tls-cross",
        "        meshes: [{name: istiod-istio-system-cluster-1, namespace: gloo-mesh}]",
      ].join("\n"),
    );
    expect(result.documents[0]?.spec).toMatchObject({
      federation: {
        selectors: [{}],
        eastWestGateways: [
          { destinationSelector: { kubeServiceMatcher: { labels: { istio: "eastwestgateway" }, namespaces: ["istio-system"] } }, portName: "tls-cross" },
        ],
      },
    });
    expect(result.dropped.map((d) => `${d.path}: ${d.reason}`)).toEqual([
      expect.stringMatching(
        /^spec\.federation\.eastWestIngressGatewaySelectors\[0\]\.meshes: meshplane applies an east-west gateway entry to every mesh of the VirtualMesh; .*clusters/,
      ),
    ]);
  });

  it("keeps gatewayTlsPortName and reports a portName set beside it", () => {
    const result = virtualMesh(
      "  federation:\n    selectors: [{}]\n    eastWestIngressGatewaySelectors: [{destinationSelectors: [{kubeServiceMatcher: {namespaces: [istio-system]}}], gatewayTlsPortName: tls, portName: mtls}]",
    );
    expect(result.documents[0]?.spec).toMatchObject({ federation: { eastWestGateways: [{ portName: "tls" }] } });
    expect(result.dropped.map((d) => d.path)).toEqual(["spec.federation.eastWestIngressGatewaySelectors[0].portName"]);
  });

  const federatesNothing =
    /^Gloo Mesh 1\.1 and later federate nothing without selectors, and so does this import; Gloo Mesh 1\.0 federated every service to every other mesh of the VirtualMesh: if this VirtualMesh was written for 1\.0, add federation\.selectors: \[\{\}\]/;

  it.each([
    ["federation: {}", "  federation: {}"],
    ["federation with only a hostname suffix", "  federation: {hostnameSuffix: soloio}"],
    ["no federation at all", "  globalAccessPolicy: ENABLED"],
  ])("reports that %s meant every service in Gloo Mesh 1.0 and none in 1.1", (_, body) => {
    const result = virtualMesh(body);
    expect(result.documents[0]?.spec).not.toHaveProperty("federation.selectors");
    expect(result.dropped).toEqual([
      { document: "VirtualMesh gloo-mesh/vm (documents[0])", path: "spec.federation", reason: expect.stringMatching(federatesNothing) },
    ]);
  });

  it.each([
    ["selectors", "  federation: {selectors: []}"],
    ["permissive", "  federation: {permissive: {}}"],
    ["a 1.1 gateway selector", "  federation: {eastWestIngressGatewaySelectors: [{gatewayTlsPortName: tls}]}"],
    ["1.1's tcpKeepalive", "  federation: {tcpKeepalive: {probes: 3}}"],
    ["1.1's rotation settings", "  mtlsConfig: {rotationStrategy: MULTI_ROOT, shared: {rootCertificateAuthority: {generated: {rsaKeySizeBytes: 4096}}}}"],
  ])("does not report a VirtualMesh whose federation is unambiguous: %s", (_, body) => {
    expect(virtualMesh(body).dropped.filter((d) => d.path === "spec.federation")).toEqual([]);
  });

  it("does not report a VirtualMesh of one mesh: neither version federated it", () => {
    const result = importGloo(gloo("VirtualMesh", "vm", "gloo-mesh", "spec:\n  meshes: [{name: m, namespace: gloo-mesh}]\n  federation: {}"));
    expect(result.dropped).toEqual([]);
  });
});

describe("formatting", () => {
  it("prints documents as multi-document YAML and the report one line each", () => {
    const result = importGloo(`${gloo("TrafficPolicy", "a", "x", `${timeout}\n    csrf: {}`)}---\nnot: gloo\n`);
    expect(formatDocuments(result.documents)).toBe(
      "---\napiVersion: meshplane.dev/v1\nkind: TrafficPolicy\nmetadata:\n  name: a\nspec:\n  policy:\n    requestTimeout: 1s\n",
    );
    expect(formatReport(result)).toBe(
      "TrafficPolicy x/a (documents[0]): spec.policy.csrf: meshplane has no CSRF filter; configure Envoy's CSRF filter with an Istio EnvoyFilter of your own\n" +
        "documents[1]: error: not a Kubernetes object (expected a mapping with apiVersion and kind)\n",
    );
  });
});
