import { describe, expect, it } from "vitest";
import { translate } from "../../packages/core/src/translate/index";
import { validateGenerated } from "../support/schema/index";
import { goldenCases, readCase } from "./cases";
import { loadInput } from "./render";

/** An HTTPRoute with one rule to the Service, plus `rule`'s fields. */
function route(rule: object) {
  return {
    apiVersion: "gateway.networking.k8s.io/v1",
    kind: "HTTPRoute",
    metadata: { name: "r", namespace: "y" },
    spec: { parentRefs: [{ group: "", kind: "Service", name: "r", port: 80 }], rules: [{ backendRefs: [{ name: "r", port: 80 }], ...rule }] },
  };
}

// docs/resources.md#generated-objects: everything generated passes the schema of the Istio version in the cluster (and the SMI
// CRDs for OSM). Strict mode also rejects fields the schema does not declare, as the API server's
// strict field validation would, instead of letting them be pruned silently.
describe("every generated object passes its kind's schema", () => {
  it("the validator rejects a broken object, so this suite can fail", () => {
    const broken = {
      apiVersion: "networking.istio.io/v1",
      kind: "VirtualService",
      metadata: { name: "x", namespace: "y" },
      spec: { hosts: ["a"], http: [{ timeout: 5, nonsense: true }] },
    };
    expect(validateGenerated(broken, { strict: true })).not.toEqual([]);
  });

  it("an HTTPRoute rule's retry is checked against the experimental channel, the only one that has it, and the rest against the standard one", () => {
    expect(validateGenerated(route({ retry: { attempts: 2, codes: [503] } }), { strict: true })).toEqual([]);
    expect(validateGenerated(route({ retry: { attempts: 0 } }), { strict: true })).not.toEqual([]);
    expect(validateGenerated(route({ retry: { attempts: 2, tries: 1 } }), { strict: true })).not.toEqual([]);
    // An experimental field meshplane does not write (rule names are standard since v1.4; sessionPersistence is experimental) is refused.
    expect(validateGenerated(route({ sessionPersistence: { type: "Cookie" } }), { strict: true })).not.toEqual([]);
  });

  it.each(goldenCases())("%s", (name) => {
    const output = translate(loadInput(readCase(name, "input.yaml") as string));
    const problems = Object.entries(output.clusters).flatMap(([cluster, { objects }]) =>
      objects.flatMap((o) =>
        validateGenerated(o, { strict: true }).map((p) => `${cluster} ${o.apiVersion} ${o.kind} ${o.metadata.namespace}/${o.metadata.name}: ${p}`),
      ),
    );
    expect(problems).toEqual([]);
  });
});
