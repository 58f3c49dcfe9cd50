/**
 * The AWS stack's operator credential (functions/ops/bootstrap-operator.ts) against the real API on
 * DynamoDB Local: deploying installs an `mpo_` credential, and rotating the secret revokes the old
 * credential the moment the new one works. Secrets Manager itself is stood in for by its version and
 * staging-label rules (below), the part of it this function relies on.
 */
import { randomUUID } from "node:crypto";
import { PutCommand } from "@aws-sdk/lib-dynamodb";
import {
  DescribeSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  ResourceNotFoundException,
  UpdateSecretVersionStageCommand,
} from "@aws-sdk/client-secrets-manager";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createOperatorBootstrap } from "../../functions/ops/bootstrap-operator";
import { hashSecret } from "../../functions/shared/secrets";
import { createDocumentClient } from "../../functions/store/client";
import { keys } from "../../functions/store/keys";
import { type ControlPlane, startControlPlane } from "../support/control-plane";

const ARN = "arn:aws:secretsmanager:us-east-1:123456789012:secret:OperatorCredential-AbCdEf";

/**
 * Secrets Manager's versions of one secret as its API documents them: a version holds a value and
 * staging labels; a label is on at most one version; moving AWSCURRENT leaves AWSPREVIOUS on the
 * version it left; a read names a version id, a label, or both (and must match both), and a version
 * without a value reads as not found. RotateSecret stages a new version id, still without a value, as
 * AWSPENDING, and then calls the rotation function's four steps with that id.
 */
class SecretVersions {
  readonly versions = new Map<string, { value: string | undefined; stages: Set<string> }>();

  constructor(initial: string) {
    this.versions.set(randomUUID(), { value: initial, stages: new Set(["AWSCURRENT"]) });
  }

  stageOf(stage: string): string | undefined {
    return [...this.versions].find(([, v]) => v.stages.has(stage))?.[0];
  }

  valueOf(stage: string): string | undefined {
    const id = this.stageOf(stage);
    return id === undefined ? undefined : this.versions.get(id)?.value;
  }

  /** What RotateSecret does before the first step: a new version id, staged AWSPENDING, with no value yet. */
  startRotation(): string {
    const id = randomUUID();
    this.versions.set(id, { value: undefined, stages: new Set() });
    this.label("AWSPENDING", id);
    return id;
  }

  private label(stage: string, id: string): void {
    const from = this.stageOf(stage);
    if (from !== undefined) this.versions.get(from)?.stages.delete(stage);
    this.versions.get(id)?.stages.add(stage);
    if (stage === "AWSCURRENT" && from !== undefined && from !== id) this.label("AWSPREVIOUS", from);
  }

  async send(command: unknown): Promise<unknown> {
    const input = (command as { input: Record<string, unknown> }).input;
    if (input.SecretId !== ARN) throw new ResourceNotFoundException({ message: "no such secret", $metadata: {} });
    if (command instanceof GetSecretValueCommand) {
      const id = (input.VersionId as string | undefined) ?? this.stageOf((input.VersionStage as string | undefined) ?? "AWSCURRENT");
      const version = id === undefined ? undefined : this.versions.get(id);
      if (version?.value === undefined || (input.VersionStage !== undefined && !version.stages.has(input.VersionStage as string))) {
        throw new ResourceNotFoundException({ message: "Secrets Manager can't find the specified secret value", $metadata: {} });
      }
      return { ARN, VersionId: id, SecretString: version.value, VersionStages: [...version.stages] };
    }
    if (command instanceof PutSecretValueCommand) {
      const id = input.ClientRequestToken as string;
      const existing = this.versions.get(id);
      if (existing?.value !== undefined && existing.value !== input.SecretString)
        throw new Error("ResourceExistsException: that version exists with another value");
      this.versions.set(id, { value: input.SecretString as string, stages: existing?.stages ?? new Set() });
      for (const stage of (input.VersionStages as string[] | undefined) ?? ["AWSCURRENT"]) this.label(stage, id);
      return { ARN, VersionId: id };
    }
    if (command instanceof DescribeSecretCommand) {
      return { ARN, VersionIdsToStages: Object.fromEntries([...this.versions].filter(([, v]) => v.stages.size > 0).map(([id, v]) => [id, [...v.stages]])) };
    }
    if (command instanceof UpdateSecretVersionStageCommand) {
      const stage = input.VersionStage as string;
      if (this.stageOf(stage) !== undefined && this.stageOf(stage) !== input.RemoveFromVersionId)
        throw new Error("InvalidParameterException: the label is on another version");
      if (input.MoveToVersionId === undefined) this.versions.get(input.RemoveFromVersionId as string)?.stages.delete(stage);
      else this.label(stage, input.MoveToVersionId as string);
      return { ARN };
    }
    throw new Error(`not used by the bootstrap: ${(command as object).constructor.name}`);
  }
}

let cp: ControlPlane;

beforeAll(async () => {
  cp = await startControlPlane();
});
afterAll(() => cp.stop());

const status = async (token: string) => (await cp.request("GET", "/v1/tenants", { token })).status;
const bootstrapWith = (secrets: SecretVersions) => createOperatorBootstrap({ secrets, store: cp.store, secretArn: ARN, now: () => new Date() });

/** `aws secretsmanager rotate-secret`: a new AWSPENDING version, then the four steps in order, each called `times` times (Secrets Manager retries). */
async function rotate(secrets: SecretVersions, bootstrap: ReturnType<typeof bootstrapWith>, times = 1): Promise<void> {
  const token = secrets.startRotation();
  for (const Step of ["createSecret", "setSecret", "testSecret", "finishSecret"] as const) {
    for (let i = 0; i < times; i++) await bootstrap({ Step, SecretId: ARN, ClientRequestToken: token });
  }
}

describe("deploying", () => {
  it("replaces CloudFormation's generated value by an mpo_ credential, which works; the generated one and the earlier credential do not", async () => {
    const generated = "Zq3Xk9PaLm2Vt7YbWc4Rn8Hd6Jf1Gs5Ke0Uo3Ti9Ly7Mx2Na4Qe";
    const secrets = new SecretVersions(generated);
    const bootstrap = bootstrapWith(secrets);
    expect(await status(cp.operatorToken)).toBe(200);

    expect(await bootstrap({ RequestType: "Create" })).toEqual({ PhysicalResourceId: "operator-credential" });

    const installed = secrets.valueOf("AWSCURRENT") as string;
    expect(installed).toMatch(/^mpo_[A-Za-z0-9_-]{43}$/);
    expect(secrets.valueOf("AWSPREVIOUS")).toBe(generated);
    expect(secrets.stageOf("AWSPENDING")).toBeUndefined();
    expect(await status(installed)).toBe(200);
    expect(await status(generated)).toBe(401);
    // The credential the marker recorded before (here the one a local first start made) is revoked with it.
    expect(await status(cp.operatorToken)).toBe(401);

    // An update with an mpo_ value in place keeps it.
    await bootstrap({ RequestType: "Update", PhysicalResourceId: "operator-credential" });
    expect(secrets.valueOf("AWSCURRENT")).toBe(installed);
    expect(await status(installed)).toBe(200);
  });

  it("upgrades a stack bootstrapped before the prefix: its unprefixed credential is revoked, an mpo_ one takes its place", async () => {
    // What the earlier bootstrap stored: a marker without a hash and the lookup of the raw secret.
    const legacy = "LegacyGeneratedCredentialWithoutPrefix0123456789ab";
    const now = new Date().toISOString();
    await cp.store.tokens.replaceOperatorSecret(`mpo_${randomUUID()}`, now);
    const doc = createDocumentClient({ region: "us-east-1", endpoint: inject("dynamoEndpoint") });
    await doc.send(new PutCommand({ TableName: cp.table, Item: { ...keys.operatorMarker, createdAt: now } }));
    await doc.send(
      new PutCommand({ TableName: cp.table, Item: { ...keys.tokenLookup(hashSecret(legacy)), kind: "operator", tokenId: "operator", createdAt: now } }),
    );
    expect(await status(legacy)).toBe(200);

    const secrets = new SecretVersions(legacy);
    await bootstrapWith(secrets)({ RequestType: "Update", PhysicalResourceId: "operator-credential" });

    const installed = secrets.valueOf("AWSCURRENT") as string;
    expect(installed.startsWith("mpo_")).toBe(true);
    expect(await status(legacy)).toBe(401);
    expect(await status(installed)).toBe(200);
  });
});

describe("rotating", () => {
  it("revokes the old credential the moment the new one is installed, and the new one works", async () => {
    const secrets = new SecretVersions("placeholder");
    const bootstrap = bootstrapWith(secrets);
    await bootstrap({ RequestType: "Create" });
    const before = secrets.valueOf("AWSCURRENT") as string;
    expect(await status(before)).toBe(200);

    const token = secrets.startRotation();
    await bootstrap({ Step: "createSecret", SecretId: ARN, ClientRequestToken: token });
    const next = secrets.valueOf("AWSPENDING") as string;
    expect(next).toMatch(/^mpo_/);
    expect(await status(next)).toBe(401);
    await bootstrap({ Step: "setSecret", SecretId: ARN, ClientRequestToken: token });
    expect(await status(before)).toBe(401);
    expect(await status(next)).toBe(200);
    await bootstrap({ Step: "testSecret", SecretId: ARN, ClientRequestToken: token });
    await bootstrap({ Step: "finishSecret", SecretId: ARN, ClientRequestToken: token });
    expect(secrets.valueOf("AWSCURRENT")).toBe(next);
    expect(secrets.valueOf("AWSPREVIOUS")).toBe(before);

    // Rotating again, with every step repeated as Secrets Manager may: again only the newest works.
    await rotate(secrets, bootstrap, 2);
    const third = secrets.valueOf("AWSCURRENT") as string;
    expect(third).not.toBe(next);
    expect(await Promise.all([before, next, third].map(status))).toEqual([401, 401, 200]);
    // A deployment afterwards keeps the rotated credential.
    await bootstrap({ RequestType: "Update", PhysicalResourceId: "operator-credential" });
    expect(await Promise.all([next, third].map(status))).toEqual([401, 200]);
  });

  it("refuses another secret's rotation, and a version that is not being rotated in, changing nothing", async () => {
    const secrets = new SecretVersions("placeholder");
    const bootstrap = bootstrapWith(secrets);
    await bootstrap({ RequestType: "Create" });
    const current = secrets.valueOf("AWSCURRENT") as string;
    const token = secrets.startRotation();
    await expect(bootstrap({ Step: "createSecret", SecretId: `${ARN}x`, ClientRequestToken: token })).rejects.toThrow(/rotates only/);
    await expect(bootstrap({ Step: "setSecret", SecretId: ARN, ClientRequestToken: randomUUID() })).rejects.toThrow(/does not exist/);
    // setSecret before createSecret made a value: nothing to install.
    await expect(bootstrap({ Step: "setSecret", SecretId: ARN, ClientRequestToken: token })).rejects.toThrow(/not AWSPENDING/);
    expect(await status(current)).toBe(200);
    expect(secrets.valueOf("AWSCURRENT")).toBe(current);
  });

  it("never deletes a tenant token's lookup, even if the secret being rotated away held a tenant token", async () => {
    const { adminToken: admin } = await cp.store.tenants.create("bystander", new Date().toISOString());
    const secrets = new SecretVersions(admin);
    await expect(bootstrapWith(secrets)({ RequestType: "Update", PhysicalResourceId: "operator-credential" })).rejects.toThrow(/not an operator credential/);
    expect((await cp.request("GET", "/v1/tokens", { token: admin })).status).toBe(200);
  });
});
