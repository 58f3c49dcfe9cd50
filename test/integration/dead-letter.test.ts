import { CreateQueueCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SQSClient, SendMessageCommand } from "@aws-sdk/client-sqs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { createLogger } from "../../functions/shared/logger";
import { createWorker } from "../../functions/translation/batch";
import { startPoller } from "../../functions/translation/poller";
import { type ControlPlane, startControlPlane } from "../support/control-plane";

let cp: ControlPlane;
beforeAll(async () => {
  cp = await startControlPlane();
});
afterAll(() => cp.stop());

describe("poison jobs", () => {
  it("a job that always fails moves to the DLQ after maxReceiveCount receives, and later jobs still run", async () => {
    const sqs = new SQSClient({ region: "us-east-1", endpoint: inject("sqsEndpoint"), credentials: { accessKeyId: "local", secretAccessKey: "local" } });
    const dlqUrl = (await sqs.send(new CreateQueueCommand({ QueueName: "poison-dlq.fifo", Attributes: { FifoQueue: "true" } }))).QueueUrl as string;
    const dlqArn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ["QueueArn"] }))).Attributes?.QueueArn as string;
    const queueUrl = (
      await sqs.send(
        new CreateQueueCommand({
          QueueName: "poison.fifo",
          Attributes: { FifoQueue: "true", VisibilityTimeout: "1", RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: "2" }) },
        }),
      )
    ).QueueUrl as string;
    const admin = await cp.tenant("poison");
    await cp.request("POST", "/v1/clusters", { token: admin, body: { name: "c1" } });
    await cp.jobs();
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: "not json", MessageGroupId: "bad", MessageDeduplicationId: "bad-1" }));
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: queueUrl,
        MessageBody: JSON.stringify({ tenantId: "poison", revision: 1 }),
        MessageGroupId: "poison",
        MessageDeduplicationId: "good-1",
      }),
    );

    const poller = startPoller({ sqs, queueUrl, handler: createWorker(cp.worker), log: createLogger({}, () => undefined), waitSeconds: 1 });
    try {
      const deadline = Date.now() + 20_000;
      let dead: string[] = [];
      while (Date.now() < deadline) {
        const out = await sqs.send(new ReceiveMessageCommand({ QueueUrl: dlqUrl, WaitTimeSeconds: 1, MaxNumberOfMessages: 10 }));
        dead = (out.Messages ?? []).map((m) => m.Body as string);
        if (dead.length > 0) break;
      }
      expect(dead).toEqual(["not json"]);
    } finally {
      await poller.stop();
    }
    expect((await cp.store.tenants.get("poison")).translatedRevision).toBe(1);
    sqs.destroy();
  });
});
