import type { KubernetesObject } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import type { Kube } from "../kube/kube";
import { STATE_SECRET, StateStore } from "./state";

/** The one Secret the state store reads and writes, kept as the apiserver would (resourceVersion checked). */
class SecretHolder {
  secret?: KubernetesObject & { data?: Record<string, string> };
  async read<T>(): Promise<T | undefined> {
    return structuredClone(this.secret) as T | undefined;
  }
  async create<T extends KubernetesObject>(obj: T): Promise<T> {
    this.secret = { ...structuredClone(obj), metadata: { ...obj.metadata, resourceVersion: "1" } };
    return structuredClone(this.secret) as T;
  }
  async replace<T extends KubernetesObject>(obj: T): Promise<T> {
    if (obj.metadata?.resourceVersion !== this.secret?.metadata?.resourceVersion) throw new Error("409 conflict");
    this.secret = { ...structuredClone(obj), metadata: { ...obj.metadata, resourceVersion: String(Number(obj.metadata?.resourceVersion) + 1) } };
    return structuredClone(this.secret) as T;
  }
}

const b64 = (s: string) => Buffer.from(s).toString("base64");
const storeOn = (holder: SecretHolder) => new StateStore({ kube: holder as unknown as Kube, namespace: "meshplane-system" });

describe("the agent's state Secret", () => {
  it("keeps the cluster's incarnation across restarts", async () => {
    const holder = new SecretHolder();
    const state = { tenant: "acme", cluster: "east", incarnation: "7d9e1f20-3a4b-4c5d-9e8f-1a2b3c4d5e6f", appliedGeneration: 3, appliedHash: "sha256:ab" };
    await storeOn(holder).save(state);
    expect(holder.secret?.metadata?.name).toBe(STATE_SECRET);
    expect(await storeOn(holder).load()).toEqual(state);
  });

  it("a Secret written before incarnations loads without one", async () => {
    const holder = new SecretHolder();
    holder.secret = {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: STATE_SECRET, resourceVersion: "9" },
      data: { tenant: b64("acme"), cluster: b64("east"), appliedGeneration: b64("4") },
    };
    const loaded = await storeOn(holder).load();
    expect(loaded).toEqual({ tenant: "acme", cluster: "east", appliedGeneration: 4 });
    expect("incarnation" in loaded).toBe(false);
  });
});
