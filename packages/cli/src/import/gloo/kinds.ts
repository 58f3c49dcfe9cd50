/** The three kinds: each Gloo spec read field by field into meshplane's. */
import { type Conversion, type Json, ShapeError, compact } from "./conversion";
import { destinationSelectors, identitySelectors, keepNarrow, meshRefs, workloadSelectors } from "./selectors";
import { httpMatcher, trafficPolicyFeatures } from "./traffic-policy";
import { FEDERATION_BY_VERSION, federatesByVersion, federation, mtls } from "./virtual-mesh";

/** A TrafficPolicy's spec; one with nothing meshplane can apply left in its policy is not imported. */
export function trafficPolicySpec(value: unknown, c: Conversion): Json {
  const spec = c.record(value, "spec", {
    keep: ["sourceSelector", "destinationSelector", "httpRequestMatchers", "policy"],
    drop: { routeSelector: "selects Gloo Mesh Enterprise gateway routes (VirtualHosts, RouteTables); meshplane policies apply to mesh traffic only" },
  });
  const converted = compact({
    sourceSelector: spec.sourceSelector === undefined ? undefined : workloadSelectors(spec.sourceSelector, "spec.sourceSelector", c),
    destinationSelector:
      spec.destinationSelector === undefined
        ? undefined
        : keepNarrow(
            destinationSelectors(spec.destinationSelector, "spec.destinationSelector", c),
            spec.destinationSelector,
            "spec.destinationSelector",
            "destination",
            c,
          ),
    httpRequestMatchers:
      spec.httpRequestMatchers === undefined
        ? undefined
        : c.list(spec.httpRequestMatchers, "spec.httpRequestMatchers").map((m, i) => httpMatcher(m, `spec.httpRequestMatchers[${i}]`, c)),
    policy: trafficPolicyFeatures(spec.policy ?? {}, c),
  });
  if (Object.keys(converted.policy as Json).length === 0) {
    throw new ShapeError("spec.policy", `nothing meshplane can apply is left in the policy${c.leftOut("spec.policy")}; not imported`);
  }
  return converted;
}

/** An AccessPolicy's spec, its sources never wider than in Gloo (identitySelectors). */
export function accessPolicySpec(value: unknown, c: Conversion): Json {
  const spec = c.record(value, "spec", { keep: ["sourceSelector", "destinationSelector", "allowedPaths", "allowedMethods", "allowedPorts"] });
  return compact({
    sourceSelector: spec.sourceSelector === undefined ? undefined : identitySelectors(spec.sourceSelector, "spec.sourceSelector", c),
    destinationSelector:
      spec.destinationSelector === undefined
        ? undefined
        : keepNarrow(
            destinationSelectors(spec.destinationSelector, "spec.destinationSelector", c),
            spec.destinationSelector,
            "spec.destinationSelector",
            "destination",
            c,
          ),
    allowedPaths: spec.allowedPaths,
    allowedMethods: spec.allowedMethods,
    allowedPorts: spec.allowedPorts,
  });
}

/** A VirtualMesh's spec: its meshes under meshplane's names, trust, federation and global access policy. */
export function virtualMeshSpec(value: unknown, c: Conversion): Json {
  const spec = c.record(value, "spec", { keep: ["meshes", "mtlsConfig", "federation", "globalAccessPolicy"] });
  const mtlsConfig = spec.mtlsConfig === undefined ? undefined : mtls(spec.mtlsConfig, "spec.mtlsConfig", c);
  const meshes = meshRefs(spec.meshes ?? [], "spec.meshes", c);
  if (meshes.length > 1 && federatesByVersion(spec)) c.drop("spec.federation", FEDERATION_BY_VERSION);
  return compact({
    meshes,
    mtlsConfig: mtlsConfig && Object.keys(mtlsConfig).length > 0 ? mtlsConfig : undefined,
    federation: spec.federation === undefined ? undefined : federation(spec.federation, "spec.federation", c),
    // MESH_DEFAULT leaves Istio's default (allow), which is what omitting the field means here.
    globalAccessPolicy: spec.globalAccessPolicy === "MESH_DEFAULT" ? undefined : spec.globalAccessPolicy,
  });
}
