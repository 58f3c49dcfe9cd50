import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type AuthoredStatus, type ResourceStatus, type Submission, USER_KIND_NAMES, type UserKind, authoredStatus, pendingStatus } from "@meshplane/core/base";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ARGOCD_SCRIPT, type KubeObject, argoHealth, expectedVerdict, fixtures, kstatus, readings } from "./verdicts";

/**
 * Argo CD's health check (packages/agent/health/argocd.lua, run by lua5.4) and kstatus's own library
 * (scripts/kstatus.sh) read each situation of the status table in docs/gitops.md#status-in-the-cluster
 * as the docs say, on custom resources whose status core's `authoredStatus` made — the code the agent
 * writes statuses with.
 */
const repo = fileURLToPath(new URL("../..", import.meta.url));
const gitops = readFileSync(join(repo, "docs/gitops.md"), "utf8");
const NOW = "2026-11-27T10:00:00Z";
const GENERATION = 4;

/** The text of a `## heading` section of docs/gitops.md. */
function section(heading: string): string {
  const start = gitops.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`docs/gitops.md has no section "${heading}"`);
  const end = gitops.indexOf("\n## ", start + 1);
  return gitops.slice(start, end < 0 ? undefined : end);
}

/** A row of the status table: the situation, Ready's status, the other condition that is True (if any), the reason. */
interface Row {
  situation: string;
  ready: string;
  also: string;
  reason: string;
}

/** The cells of a table row, without their code marks. */
const cells = (l: string) =>
  l
    .slice(1, -1)
    .split("|")
    .map((c) => c.trim().replaceAll("`", ""));

function statusTable(): Row[] {
  const lines = section("Status in the cluster")
    .split("\n")
    .filter((l) => l.startsWith("|"));
  expect(cells(lines[0] ?? "")).toEqual(["situation", "Ready", "also", "reason"]);
  return lines.slice(2).map((l) => {
    const [situation = "", ready = "", also = "", reason = ""] = cells(l);
    return { situation, ready, also, reason };
  });
}

const stored = (state: ResourceStatus["state"], clusters: ResourceStatus["clusters"], errors?: string[]): ResourceStatus => ({
  observedGeneration: 2,
  state,
  ...(errors ? { errors } : {}),
  clusters,
});
const storedAt = (name: string): Submission => ({ generation: GENERATION, state: "stored", name, storedGeneration: 2 });
const refused = (reason: "Invalid" | "OutsideGrant" | "Conflict", errors: string[]): Submission => ({
  generation: GENERATION,
  state: "refused",
  reason,
  errors,
});

/** Every state the agent can write, keyed by the reason it carries (the table's last column; `Conflict` has no row). */
const SITUATIONS: Record<string, { submission: Submission; stored?: ResourceStatus }> = {
  Submitting: { submission: { generation: GENERATION, state: "submitting", message: "the control plane is unreachable" } },
  Invalid: { submission: refused("Invalid", ["spec.retries.perTryTimeout: RE2 cannot compile (a"]) },
  OutsideGrant: { submission: refused("OutsideGrant", ["spec.destinationSelector[0].kubeServiceMatcher.clusters[0]: west is outside this cluster's grant"]) },
  Conflict: { submission: refused("Conflict", ["metadata.name: cart.shop.east is held by another resource"]) },
  Translating: { submission: storedAt("cart.shop.east"), stored: pendingStatus(2) },
  Applying: {
    submission: storedAt("cart.shop.east"),
    stored: stored("ACCEPTED", { east: { generation: 7, applied: true }, west: { generation: 6, applied: false } }),
  },
  Accepted: {
    submission: storedAt("cart.shop.east"),
    stored: stored("ACCEPTED", { east: { generation: 7, applied: true }, west: { generation: 7, applied: true } }),
  },
  Failed: {
    submission: storedAt("cart.shop.east"),
    stored: stored("FAILED", { east: { generation: 7, applied: false, errors: ["the API server refused VirtualService cart: spec.http[0].retries"] } }),
  },
};
/** `INVALID` from translation carries the same reason as a refusal by validation: the table has two rows for it. */
const TRANSLATED_INVALID = { submission: storedAt("cart.shop.east"), stored: stored("INVALID", {}, ["destination cart.shop.east: no service matches"]) };

function customResource(kind: UserKind, status: AuthoredStatus | undefined, generation = GENERATION): KubeObject {
  return {
    apiVersion: "meshplane.dev/v1",
    kind,
    metadata: { name: "cart", namespace: "shop", uid: "6f1c0f0e-2b1e-4d39-9d0a-2f7e9b1c4a11", generation, finalizers: ["meshplane.dev/authored"] },
    spec: {},
    ...(status ? { status } : {}),
  };
}

/** The verdicts docs/gitops.md promises for a row: Stalled fails, Reconciling is in progress, Ready True is healthy. */
function promised(row: Row) {
  if (row.also === "Stalled") return { argo: "Degraded", kstatus: "Failed" };
  if (row.also === "Reconciling") return { argo: "Progressing", kstatus: "InProgress" };
  expect(row.ready).toBe("True");
  return { argo: "Healthy", kstatus: "Current" };
}

const rows = statusTable();

describe("the status table of docs/gitops.md, read by Argo CD's health check and by kstatus", () => {
  it("names only reasons the agent writes, and every one of them (Conflict may come)", () => {
    const reasons = new Set(rows.map((r) => r.reason));
    expect([...reasons].filter((r) => !(r in SITUATIONS))).toEqual([]);
    expect(Object.keys(SITUATIONS).filter((r) => r !== "Conflict" && !reasons.has(r))).toEqual([]);
  });

  it.each(rows.map((r, i) => [r.situation, r, i] as const))("%s", (_situation, row, i) => {
    const made = row.reason === "Invalid" && i > rows.findIndex((r) => r.reason === "Invalid") ? TRANSLATED_INVALID : SITUATIONS[row.reason];
    if (made === undefined) throw new Error(`no situation for reason ${row.reason}`);
    const status = authoredStatus(made.submission, made.stored, undefined, NOW);
    // The status says what the row says.
    const ready = status.conditions.find((c) => c.type === "Ready");
    expect(ready).toMatchObject({ status: row.ready, reason: row.reason, observedGeneration: GENERATION });
    expect(status.conditions.filter((c) => c.type !== "Ready").map((c) => [c.type, c.status])).toEqual(row.also ? [[row.also, "True"]] : []);

    const want = promised(row);
    const condition = status.conditions.find((c) => c.type === (row.also || "Ready"));
    for (const r of readings(USER_KIND_NAMES.map((kind) => customResource(kind, status)))) {
      expect(r.expected).toEqual(want);
      expect(r.argo.status).toBe(want.argo);
      expect(r.kstatus.status).toBe(want.kstatus);
      if (want.argo === "Progressing") expect(r.argo.message).toBe(`${row.reason}: ${condition?.message}`);
      else expect(r.argo.message).toBe(condition?.message);
      if (want.kstatus !== "Current") expect(r.kstatus.message).toBe(condition?.message);
    }
  });
});

describe("beyond the table", () => {
  it("a refusal because another resource holds the name is stalled too (Conflict)", () => {
    if (SITUATIONS.Conflict === undefined) throw new Error("missing situation");
    const status = authoredStatus(SITUATIONS.Conflict.submission, undefined, undefined, NOW);
    const object = customResource("TrafficPolicy", status);
    expect(argoHealth(object)).toEqual({ status: "Degraded", message: "metadata.name: cart.shop.east is held by another resource" });
    expect(kstatus([object])[0]?.status).toBe("Failed");
    expect(expectedVerdict(object)).toEqual({ argo: "Degraded", kstatus: "Failed" });
  });

  it("an edit the agent has not sent yet (observedGeneration behind metadata.generation) is in progress, even over Ready or Stalled", () => {
    for (const made of [SITUATIONS.Accepted, SITUATIONS.Invalid]) {
      if (made === undefined) throw new Error("missing situation");
      const object = customResource("AccessPolicy", authoredStatus(made.submission, made.stored, undefined, NOW), GENERATION + 1);
      expect(argoHealth(object)).toEqual({ status: "Progressing", message: "waiting for meshplane" });
      expect(kstatus([object])[0]).toEqual({
        status: "InProgress",
        message: `AccessPolicy generation is ${GENERATION + 1}, but latest observed generation is ${GENERATION}`,
      });
      expect(expectedVerdict(object)).toEqual({ argo: "Progressing", kstatus: "InProgress" });
    }
  });

  it("no status yet: Argo CD waits for meshplane; kstatus, which cannot tell it from a resource no controller owns, calls it current", () => {
    const object = customResource("VirtualMesh", undefined);
    expect(argoHealth(object)).toEqual({ status: "Progressing", message: "waiting for meshplane" });
    expect(kstatus([object])[0]).toEqual({ status: "Current", message: "Resource is current" });
    expect(expectedVerdict(object)).toBeUndefined();
  });

  it("a status of observedGeneration 0 (what a CRD's schema default would show before the agent writes) is in progress for both", () => {
    const [r] = readings([customResource("TrafficPolicy", { observedGeneration: 0, conditions: [] }, 1)]);
    expect(r?.argo).toEqual({ status: "Progressing", message: "waiting for meshplane" });
    expect(r?.kstatus).toEqual({ status: "InProgress", message: "TrafficPolicy generation is 1, but latest observed generation is 0" });
    expect(r?.expected).toEqual({ argo: "Progressing", kstatus: "InProgress" });
  });

  it("a status whose conditions are not there yet is in progress for Argo CD", () => {
    const object = customResource("TrafficPolicy", { observedGeneration: GENERATION, conditions: [] });
    expect(argoHealth(object)).toEqual({ status: "Progressing", message: "waiting for meshplane" });
  });

  it("reads any bytes of a message exactly", () => {
    const message = 'quotes " and \\ backslashes, a newline\nand ünïcödé ✓';
    const object = customResource("TrafficPolicy", {
      observedGeneration: GENERATION,
      conditions: [
        { type: "Ready", status: "False", reason: "Invalid", message, observedGeneration: GENERATION, lastTransitionTime: NOW },
        { type: "Stalled", status: "True", reason: "Invalid", message, observedGeneration: GENERATION, lastTransitionTime: NOW },
      ],
    });
    expect(argoHealth(object)).toEqual({ status: "Degraded", message });
    expect(kstatus([object])[0]).toEqual({ status: "Failed", message });
  });
});

describe("docs/gitops.md#argo-cd", () => {
  it("carries exactly packages/agent/health/argocd.lua under one argocd-cm key per kind", () => {
    const block = /```yaml\n([\s\S]*?)```/.exec(section("Argo CD"))?.[1];
    if (block === undefined) throw new Error("docs/gitops.md#argo-cd has no yaml block");
    const configMap = parse(block) as { kind: string; metadata: { name: string }; data: Record<string, string> };
    expect(configMap.kind).toBe("ConfigMap");
    expect(configMap.metadata.name).toBe("argocd-cm");
    const script = readFileSync(ARGOCD_SCRIPT, "utf8");
    expect(Object.keys(configMap.data).sort()).toEqual(USER_KIND_NAMES.map((k) => `resource.customizations.health.meshplane.dev_${k}`).sort());
    for (const value of Object.values(configMap.data)) expect(value).toBe(script);
  });
});

describe("fixtures (statuses a real agent wrote, for when test/gitops/fixtures holds them)", () => {
  it("reads one object, an array of them, or a List as kubectl prints it, file by file; nothing from a missing folder", () => {
    const dir = mkdtempSync(join(tmpdir(), "gitops-fixtures-"));
    try {
      const accepted = SITUATIONS.Accepted;
      if (accepted === undefined) throw new Error("missing situation");
      const status = authoredStatus(accepted.submission, accepted.stored, undefined, NOW);
      const [a, b, c] = USER_KIND_NAMES.map((kind) => customResource(kind, status));
      writeFileSync(join(dir, "b-list.json"), JSON.stringify({ apiVersion: "v1", kind: "List", items: [b] }));
      writeFileSync(join(dir, "a-one.json"), JSON.stringify(a));
      writeFileSync(join(dir, "c-array.json"), JSON.stringify([c]));
      writeFileSync(join(dir, "notes.txt"), "not a fixture");
      const found = fixtures(dir);
      expect(found.map((f) => [f.file, f.object.kind])).toEqual([
        ["a-one.json", "VirtualMesh"],
        ["b-list.json", "TrafficPolicy"],
        ["c-array.json", "AccessPolicy"],
      ]);
      for (const r of readings(found.map((f) => f.object))) expect([r.argo.status, r.kstatus.status]).toEqual([r.expected?.argo, r.expected?.kstatus]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(fixtures(join(dir, "gone"))).toEqual([]);
  });
});

describe("statuses a real agent wrote (test/gitops/fixtures, saved by test/e2e/authoring.test.ts)", () => {
  const saved = fixtures(join(repo, "test/gitops/fixtures"));
  const want: Record<string, [string, string]> = {
    "ready.json": ["Healthy", "Current"],
    "reconciling.json": ["Progressing", "InProgress"],
    "stalled-invalid.json": ["Degraded", "Failed"],
    "stalled-outside-grant.json": ["Degraded", "Failed"],
  };

  it("are there, one per situation the e2e reaches", () => {
    expect(saved.map((f) => f.file).sort()).toEqual(Object.keys(want).sort());
  });

  it("read to Argo CD and kstatus as docs/gitops.md says", () => {
    const read = readings(saved.map((f) => f.object));
    saved.forEach((f, i) => {
      const r = read[i];
      expect([f.file, r?.argo.status, r?.kstatus.status]).toEqual([f.file, ...(want[f.file] ?? [])]);
      expect([r?.argo.status, r?.kstatus.status]).toEqual([r?.expected?.argo, r?.expected?.kstatus]);
    });
  });
});
