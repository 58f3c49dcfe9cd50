import { randomUUID } from "node:crypto";
import {
  DescribeSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  ResourceNotFoundException,
  type SecretsManagerClient,
  UpdateSecretVersionStageCommand,
} from "@aws-sdk/client-secrets-manager";
import { TOKEN_PREFIX, newSecret } from "../shared/secrets";
import type { Store } from "../store/index";

/**
 * The AWS stack's operator credential, kept in Secrets Manager; the API only ever sees its SHA-256 in
 * the table (docs/aws.md). This function is two things:
 *
 * - the CloudFormation custom resource that makes the secret usable on create and update: a value
 *   without the `mpo_` prefix (what CloudFormation generates, or a stack bootstrapped before the
 *   prefix) is replaced by a new `mpo_…` credential, rotated in as below; one with it is (re)installed,
 *   revoking any other;
 * - the secret's rotation function (`aws secretsmanager rotate-secret`): Secrets Manager's four steps,
 *   where `setSecret` installs the new credential's hash and deletes the old one's in one transaction,
 *   so the old credential is refused from that moment on.
 */

export type CustomResourceEvent = { RequestType: "Create" | "Update" | "Delete"; PhysicalResourceId?: string };
export type RotationEvent = { Step: "createSecret" | "setSecret" | "testSecret" | "finishSecret"; SecretId: string; ClientRequestToken: string };

export interface OperatorBootstrapDeps {
  secrets: Pick<SecretsManagerClient, "send">;
  store: Store;
  /** The one secret this function manages; a rotation event for any other is refused. */
  secretArn: string;
  now: () => Date;
}

const PHYSICAL_ID = "operator-credential";
const CURRENT = "AWSCURRENT";
const PENDING = "AWSPENDING";

export function createOperatorBootstrap(deps: OperatorBootstrapDeps) {
  const { secrets, store, secretArn } = deps;
  const now = () => deps.now().toISOString();

  const value = async (stage: string, versionId?: string): Promise<string | undefined> => {
    try {
      const out = await secrets.send(new GetSecretValueCommand({ SecretId: secretArn, VersionStage: stage, ...(versionId ? { VersionId: versionId } : {}) }));
      return out.SecretString;
    } catch (error) {
      if (error instanceof ResourceNotFoundException) return undefined;
      throw error;
    }
  };
  const pending = async (token: string): Promise<string> => {
    const secret = await value(PENDING, token);
    if (secret === undefined) throw new Error(`version ${token} of the operator secret is not ${PENDING}`);
    return secret;
  };

  const steps = {
    /** A new `mpo_` credential as the pending version (kept if a retried step already made it). */
    async createSecret(token: string) {
      if ((await value(PENDING, token)) !== undefined) return;
      await secrets.send(
        new PutSecretValueCommand({ SecretId: secretArn, ClientRequestToken: token, SecretString: newSecret(TOKEN_PREFIX.operator), VersionStages: [PENDING] }),
      );
    },
    /** The pending credential becomes the operator credential; the current one (and any recorded) is revoked with it. */
    async setSecret(token: string) {
      const next = await pending(token);
      const current = await value(CURRENT);
      await store.tokens.replaceOperatorSecret(next, now(), current === undefined || current === next ? [] : [current]);
    },
    /** The pending credential works and the current one no longer does. */
    async testSecret(token: string) {
      const next = await pending(token);
      if (!(await store.tokens.isOperatorSecret(next))) throw new Error("the new operator credential is not accepted");
      const current = await value(CURRENT);
      if (current !== undefined && current !== next && (await store.tokens.isOperatorSecret(current)))
        throw new Error("the old operator credential is still accepted");
    },
    /** The pending version becomes AWSCURRENT (Secrets Manager keeps the old one as AWSPREVIOUS). */
    async finishSecret(token: string) {
      const described = await secrets.send(new DescribeSecretCommand({ SecretId: secretArn }));
      const current = Object.entries(described.VersionIdsToStages ?? {}).find(([, stages]) => stages.includes(CURRENT))?.[0];
      if (current === token) return;
      await secrets.send(
        new UpdateSecretVersionStageCommand({
          SecretId: secretArn,
          VersionStage: CURRENT,
          MoveToVersionId: token,
          ...(current ? { RemoveFromVersionId: current } : {}),
        }),
      );
    },
  };

  /** A rotation step, as Secrets Manager invokes it: only for this secret, only for a version being rotated in. */
  async function rotate(event: RotationEvent): Promise<void> {
    if (event.SecretId !== secretArn) throw new Error(`this function rotates only ${secretArn}, not ${event.SecretId}`);
    const step = steps[event.Step];
    if (step === undefined) throw new Error(`unknown rotation step ${String(event.Step)}`);
    const described = await secrets.send(new DescribeSecretCommand({ SecretId: secretArn }));
    const stages = described.VersionIdsToStages?.[event.ClientRequestToken];
    if (stages === undefined) throw new Error(`version ${event.ClientRequestToken} of the operator secret does not exist`);
    if (stages.includes(CURRENT)) return;
    if (!stages.includes(PENDING)) throw new Error(`version ${event.ClientRequestToken} of the operator secret is not ${PENDING}`);
    await step(event.ClientRequestToken);
  }

  /** Create and update: the secret's current value becomes the one operator credential, with the `mpo_` prefix. */
  async function install(): Promise<void> {
    const current = await value(CURRENT);
    if (current?.startsWith(TOKEN_PREFIX.operator)) {
      await store.tokens.replaceOperatorSecret(current, now());
      return;
    }
    const token = randomUUID();
    await steps.createSecret(token);
    await steps.setSecret(token);
    await steps.testSecret(token);
    await steps.finishSecret(token);
    // RotateSecret clears the pending label when it has finished; here nothing else will.
    await secrets.send(new UpdateSecretVersionStageCommand({ SecretId: secretArn, VersionStage: PENDING, RemoveFromVersionId: token }));
  }

  return async (event: CustomResourceEvent | RotationEvent): Promise<{ PhysicalResourceId: string } | undefined> => {
    if ("Step" in event) {
      await rotate(event);
      return undefined;
    }
    if (event.RequestType !== "Delete") await install();
    return { PhysicalResourceId: event.PhysicalResourceId ?? PHYSICAL_ID };
  };
}
