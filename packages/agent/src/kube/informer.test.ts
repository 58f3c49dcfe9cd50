import type { KubernetesObject } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { Informer, type WatchSource } from "./informer";
import { KubeError } from "./failure";
import type { ListPage, WatchEvent } from "./kube";

const pod = (namespace: string, name: string, resourceVersion: string): KubernetesObject => ({ metadata: { namespace, name, resourceVersion } });

/** A fake apiserver collection: lists answer `pages` in turn; each watch is recorded and can be fed and ended. */
class FakeSource implements WatchSource {
  lists = 0;
  readonly watches: { resourceVersion: string; send: (e: WatchEvent) => void; end: (error: unknown) => void; stopped: boolean }[] = [];
  constructor(private readonly pages: (ListPage | Error)[]) {}

  async listPath(): Promise<ListPage> {
    const page = this.pages[Math.min(this.lists++, this.pages.length - 1)] as ListPage | Error;
    if (page instanceof Error) throw page;
    return page;
  }

  async watch(_path: string, resourceVersion: string, onEvent: (e: WatchEvent) => void, done: (error: unknown) => void): Promise<() => void> {
    const w = { resourceVersion, send: onEvent, end: done, stopped: false };
    this.watches.push(w);
    return () => (w.stopped = true);
  }
}

const names = (informer: Informer) => informer.list().map((o) => `${o.metadata?.namespace}/${o.metadata?.name}@${o.metadata?.resourceVersion}`);
const flush = () => new Promise((r) => setTimeout(r, 0));

describe("Informer", () => {
  it("lists, then watches from the list's resourceVersion, applying events in place", async () => {
    const source = new FakeSource([{ items: [pod("a", "p1", "1"), pod("b", "p2", "2")], metadata: { resourceVersion: "10" } }]);
    const informer = new Informer(source, "/api/v1/pods");
    const seen: string[] = [];
    informer.on("add", (o) => seen.push(`add ${(o as KubernetesObject).metadata?.name}`));
    informer.on("update", (o) => seen.push(`update ${(o as KubernetesObject).metadata?.name}`));
    informer.on("delete", (o) => seen.push(`delete ${(o as KubernetesObject).metadata?.name}`));
    await informer.start();
    expect(source.watches.map((w) => w.resourceVersion)).toEqual(["10"]);
    const w = source.watches[0] as FakeSource["watches"][number];
    w.send({ type: "MODIFIED", object: pod("a", "p1", "11") });
    w.send({ type: "MODIFIED", object: pod("a", "p1", "11") }); // the same version: no update
    w.send({ type: "ADDED", object: pod("a", "p3", "12") });
    w.send({ type: "DELETED", object: pod("b", "p2", "13") });
    w.send({ type: "BOOKMARK", object: { metadata: { resourceVersion: "14" } } });
    expect(names(informer)).toEqual(["a/p1@11", "a/p3@12"]);
    expect(seen).toEqual(["add p1", "add p2", "update p1", "add p3", "delete p2"]);
    // The server ends the watch: it is resumed from the last resourceVersion, without listing again.
    w.end(null);
    await flush();
    expect(source.lists).toBe(1);
    expect(source.watches.map((x) => x.resourceVersion)).toEqual(["10", "14"]);
  });

  it("lists again after 410 Gone, deleting what the new list lacks", async () => {
    const source = new FakeSource([
      { items: [pod("a", "p1", "1"), pod("b", "p2", "2")], metadata: { resourceVersion: "10" } },
      { items: [pod("a", "p1", "5")], metadata: { resourceVersion: "20" } },
    ]);
    const informer = new Informer(source, "/api/v1/pods");
    const deleted: string[] = [];
    informer.on("change", () => undefined);
    informer.on("delete", (o) => deleted.push((o as KubernetesObject).metadata?.name ?? ""));
    await informer.start();
    (source.watches[0] as FakeSource["watches"][number]).send({ type: "ERROR", object: { code: 410 } });
    (source.watches[0] as FakeSource["watches"][number]).end(null);
    await flush();
    expect(source.lists).toBe(2);
    expect(deleted).toEqual(["p2"]);
    expect(names(informer)).toEqual(["a/p1@5"]);
    // A watch refused with 410 lists again too.
    (source.watches[1] as FakeSource["watches"][number]).end(new KubeError(410, "too old"));
    await flush();
    expect(source.lists).toBe(3);
    expect(source.watches.map((x) => x.resourceVersion)).toEqual(["10", "20", "20"]);
  });

  it("reports a failed list or watch as an error and does not restart by itself; start() resumes", async () => {
    const source = new FakeSource([new KubeError(403, "forbidden"), { items: [pod("a", "p1", "1")], metadata: { resourceVersion: "3" } }]);
    const informer = new Informer(source, "/api/v1/pods");
    const errors: string[] = [];
    informer.on("error", (e) => errors.push((e as Error).message));
    await informer.start();
    expect(errors).toEqual(["forbidden"]);
    expect(source.watches).toHaveLength(0);
    await informer.start();
    (source.watches[0] as FakeSource["watches"][number]).end(new KubeError(0, "connection reset"));
    await flush();
    expect(errors).toEqual(["forbidden", "connection reset"]);
    expect(source.watches).toHaveLength(1);
    await informer.start();
    expect(source.lists).toBe(2);
    expect(source.watches.map((x) => x.resourceVersion)).toEqual(["3", "3"]);
  });

  it("stops its watch and does not resume when stopped", async () => {
    const source = new FakeSource([{ items: [], metadata: { resourceVersion: "1" } }]);
    const informer = new Informer(source, "/api/v1/pods");
    await informer.start();
    informer.stop();
    expect(source.watches[0]?.stopped).toBe(true);
    (source.watches[0] as FakeSource["watches"][number]).end(null);
    await flush();
    expect(source.watches).toHaveLength(1);
  });
});
