/**
 * The tag of a container image reference, or undefined when it has none. A registry port
 * (`localhost:5000/istio/pilot`) is not a tag and a digest (`@sha256:…`) is dropped, which is why we
 * only look for `:` in the last path segment.
 */
export function imageTag(image: string): string | undefined {
  const withoutDigest = image.split("@")[0] ?? "";
  const lastSegment = withoutDigest.slice(withoutDigest.lastIndexOf("/") + 1);
  const colon = lastSegment.lastIndexOf(":");
  return colon >= 0 && colon < lastSegment.length - 1 ? lastSegment.slice(colon + 1) : undefined;
}

// A release number, with a pre-release part Istio and OSM actually use (1.25.0-beta.1, 1.24.0-rc.0),
// then any image variant suffix (-distroless, -debug) which says nothing about the version.
const RELEASE = /^v?(\d+\.\d+(?:\.\d+)?(?:-(?:alpha|beta|rc)(?:\.?\d+)*)?)(?:-.*)?$/;

/**
 * The mesh version an image runs: the tag without a leading `v` and without a variant suffix
 * (`docker.io/istio/pilot:1.24.2-distroless` → `1.24.2`, `openservicemesh/osm-controller:v1.2.4` →
 * `1.2.4`). A tag that is not a release number (`latest`, `master-abc`) is returned as it is, so the
 * translator can tell it apart; an untagged image is `latest`, as the container runtime reads it,
 * and a digest-only image is `unknown`.
 */
export function imageVersion(image: string): string {
  const tag = imageTag(image);
  if (tag === undefined) return image.includes("@") ? "unknown" : "latest";
  return RELEASE.exec(tag)?.[1] ?? tag;
}
