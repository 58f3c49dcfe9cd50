import type { SQSClient, SendMessageCommand } from "@aws-sdk/client-sqs";

/** An SQS client with the one command the API and the worker send, as loaded on first use. */
export interface SqsSender {
  client: SQSClient;
  SendMessageCommand: typeof SendMessageCommand;
}

/**
 * The SQS client, made (its module loaded) on the first call and kept: most cold starts send nothing
 * (docs/aws.md#function-bundles-and-cold-start). An `endpoint` is the local emulator's, with dummy credentials.
 */
export function sqsOnFirstUse(options: { region: string; endpoint?: string | undefined }): () => Promise<SqsSender> {
  let loaded: Promise<SqsSender> | undefined;
  return () =>
    (loaded ??= import("@aws-sdk/client-sqs").then((m) => ({
      client: new m.SQSClient({
        region: options.region,
        ...(options.endpoint ? { endpoint: options.endpoint, credentials: { accessKeyId: "local", secretAccessKey: "local" } } : {}),
      }),
      SendMessageCommand: m.SendMessageCommand,
    })));
}
