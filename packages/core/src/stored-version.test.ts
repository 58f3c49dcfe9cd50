import { describe, expect, it } from "vitest";
import type { StoredResource, UserDocument } from "./api/index";
import { nextStoredVersion } from "./stored-version";

const STAMP = { now: "2031-01-02T00:00:00.000Z", resourceVersion: "8", uid: "new-uid" };

const doc = (metadata: Partial<UserDocument["metadata"]>, timeout = "1s"): UserDocument => ({
  apiVersion: "meshplane.dev/v1",
  kind: "TrafficPolicy",
  metadata: { name: "tp", ...metadata },
  spec: { policy: { requestTimeout: timeout } },
});

const STORED = {
  apiVersion: "meshplane.dev/v1",
  kind: "TrafficPolicy",
  metadata: {
    name: "tp",
    labels: { team: "a" },
    annotations: { note: "x" },
    uid: "old-uid",
    generation: 3,
    resourceVersion: "5",
    createdAt: "2030-01-01T00:00:00.000Z",
    updatedAt: "2030-06-01T00:00:00.000Z",
  },
  spec: { policy: { requestTimeout: "1s" } },
  status: { observedGeneration: 3, state: "ACCEPTED" },
} as StoredResource;

describe("nextStoredVersion", () => {
  it("makes a new resource: generation 1, the stamp's uid and time, PENDING, empty maps left out", () => {
    expect(nextStoredVersion(undefined, doc({ labels: {}, annotations: { note: "y" } }), STAMP)).toEqual({
      apiVersion: "meshplane.dev/v1",
      kind: "TrafficPolicy",
      metadata: { name: "tp", annotations: { note: "y" }, uid: "new-uid", generation: 1, resourceVersion: "8", createdAt: STAMP.now, updatedAt: STAMP.now },
      spec: { policy: { requestTimeout: "1s" } },
      status: { observedGeneration: 1, state: "PENDING" },
    });
  });

  it("returns undefined when nothing the user owns changed (server-owned fields sent back do not count)", () => {
    expect(nextStoredVersion(STORED, doc({ labels: { team: "a" }, annotations: { note: "x" }, uid: "forged", generation: 99 }), STAMP)).toBeUndefined();
  });

  it.each([
    ["an annotation", doc({ labels: { team: "a" }, annotations: { note: "z" } }), 3, { labels: { team: "a" }, annotations: { note: "z" } }],
    ["the labels, dropped", doc({ annotations: { note: "x" } }), 3, { annotations: { note: "x" } }],
    ["the spec", doc({ labels: { team: "a" }, annotations: { note: "x" } }, "2s"), 4, { labels: { team: "a" }, annotations: { note: "x" } }],
  ])("on a change of %s: keeps uid, createdAt and status; generation moves with the spec only", (_what, next, generation, maps) => {
    expect(nextStoredVersion(STORED, next, STAMP)?.metadata).toEqual({
      name: "tp",
      ...maps,
      uid: "old-uid",
      generation,
      resourceVersion: "8",
      createdAt: STORED.metadata.createdAt,
      updatedAt: STAMP.now,
    });
    expect(nextStoredVersion(STORED, next, STAMP)?.status).toBe(STORED.status);
  });
});
