import type { RemovalPolicy } from "aws-cdk-lib";
import { Key, KeySpec, KeyUsage } from "aws-cdk-lib/aws-kms";
import type { Construct } from "constructs";

/** The KMS condition under which a CA key is sealed and opened: the VirtualMeshes' CA encryption context. */
export const CA_CONTEXT = { StringEquals: { "kms:EncryptionContext:purpose": "meshplane-ca" } };

/**
 * The two KMS keys: the snapshot signing key (ES256) and the key that seals the VirtualMeshes' CA
 * private keys (envelope encryption, a data key per CA key, the tenant and VirtualMesh bound in as
 * encryption context). Only the worker signs and seals; only the CA signer opens.
 *
 * Built in `scope` itself, as the stack always had them, so their logical IDs stay the same.
 */
export class MeshplaneKeys {
  readonly signingKey: Key;
  readonly caKey: Key;

  constructor(scope: Construct, props: { removalPolicy: RemovalPolicy }) {
    this.signingKey = new Key(scope, "SnapshotSigningKey", {
      description: "meshplane snapshot signing (ES256)",
      keySpec: KeySpec.ECC_NIST_P256,
      keyUsage: KeyUsage.SIGN_VERIFY,
      removalPolicy: props.removalPolicy,
    });
    this.caKey = new Key(scope, "CaKeyEncryptionKey", {
      description: "meshplane VirtualMesh CA keys (envelope encryption)",
      enableKeyRotation: true,
      removalPolicy: props.removalPolicy,
    });
  }
}
