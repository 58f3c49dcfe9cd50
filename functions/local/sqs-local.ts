import { startFauxqs } from "fauxqs";

export interface SqsLocal {
  endpoint: string;
  queueUrl: string;
  dlqUrl: string;
  stop(): Promise<void>;
}

/** How often a job may fail before SQS moves it to the dead-letter queue (the stack uses the same). */
export const MAX_RECEIVES = 5;

/**
 * Starts the SQS emulator in this process with the translate FIFO queue and its DLQ, wired with
 * the same redrive policy the AWS stack declares.
 */
export async function startSqsLocal(options: { port?: number } = {}): Promise<SqsLocal> {
  const server = await startFauxqs({ port: options.port ?? 0, logger: false });
  const dlq = server.createQueue("meshplane-translate-dlq.fifo", { attributes: { FifoQueue: "true" } });
  const queue = server.createQueue("meshplane-translate.fifo", {
    attributes: {
      FifoQueue: "true",
      VisibilityTimeout: "60",
      RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.queueArn, maxReceiveCount: String(MAX_RECEIVES) }),
    },
  });
  return { endpoint: server.address, queueUrl: queue.queueUrl, dlqUrl: dlq.queueUrl, stop: () => server.stop() };
}
