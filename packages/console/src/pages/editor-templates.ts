import type { Collection } from "../router";

/** What "New policy" starts from, per kind: a small valid document to change. */
export const TEMPLATES: Record<Collection, string> = {
  trafficpolicies: `apiVersion: meshplane.dev/v1
kind: TrafficPolicy
metadata:
  name: my-policy
spec:
  destinationSelector:
  - kubeServiceMatcher:
      namespaces: [default]
  policy:
    requestTimeout: 5s
`,
  accesspolicies: `apiVersion: meshplane.dev/v1
kind: AccessPolicy
metadata:
  name: my-access
spec:
  sourceSelector:
  - kubeIdentityMatcher:
      namespaces: [default]
  destinationSelector:
  - kubeServiceMatcher:
      namespaces: [default]
  allowedMethods: [GET]
`,
  virtualmeshes: `apiVersion: meshplane.dev/v1
kind: VirtualMesh
metadata:
  name: my-virtual-mesh
spec:
  meshes:
  - name: MESH-NAME
  mtlsConfig:
    shared:
      rootCertificateAuthority:
        generated: {}
`,
};
