import { readEnv } from "./env";
import { createRuntime } from "./runtime";
import { createCsrSigner } from "../trust/ca-signer/signer";

/**
 * The CA signer's Lambda function: no route, invoked only by the API (lambda:InvokeFunction); the one
 * function that may decrypt CA keys (docs/aws.md, "Least privilege").
 */
const signer = createCsrSigner(createRuntime(readEnv()).caSigner);

export const handler = (event: unknown) => signer.sign(event);
