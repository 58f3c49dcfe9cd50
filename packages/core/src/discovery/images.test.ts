import { describe, expect, it } from "vitest";
import { imageTag, imageVersion } from "./images";

describe("imageTag", () => {
  it.each([
    ["docker.io/istio/pilot:1.24.2", "1.24.2"],
    ["localhost:5000/istio/pilot:1.24.2", "1.24.2"],
    ["localhost:5000/istio/pilot", undefined],
    ["istio/pilot:1.24.2@sha256:abcdef", "1.24.2"],
    ["istio/pilot@sha256:abcdef", undefined],
    ["pilot:", undefined],
  ])("%s → %s", (image, tag) => {
    expect(imageTag(image)).toBe(tag);
  });
});

describe("imageVersion", () => {
  it.each([
    ["docker.io/istio/pilot:1.24.2", "1.24.2"],
    ["docker.io/istio/pilot:1.24.2-distroless", "1.24.2"],
    ["gcr.io/istio-release/pilot:1.22.0-debug", "1.22.0"],
    ["docker.io/istio/pilot:1.25.0-beta.1", "1.25.0-beta.1"],
    ["docker.io/istio/pilot:1.24.0-rc.0-distroless", "1.24.0-rc.0"],
    ["openservicemesh/osm-controller:v1.2.4", "1.2.4"],
    ["registry.local:5000/osm-controller:v1.2", "1.2"],
    ["istio/pilot:latest", "latest"],
    ["istio/pilot:master-7f3a", "master-7f3a"],
    ["istio/pilot", "latest"],
    ["istio/pilot@sha256:0123", "unknown"],
  ])("%s → %s", (image, version) => {
    expect(imageVersion(image)).toBe(version);
  });
});
