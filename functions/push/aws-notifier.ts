/**
 * The push channel on AWS (docs/push.md): agents hold WebSockets on an API Gateway WebSocket API, the
 * connection ids live in DynamoDB (store/push-connections.ts), and the worker tells each connection
 * of a cluster its new generation through the API's management endpoint.
 */
import { ApiGatewayManagementApiClient, DeleteConnectionCommand, GoneException, PostToConnectionCommand } from "@aws-sdk/client-apigatewaymanagementapi";
import type { PushMessage } from "@meshplane/core/base";
import type { Logger } from "../shared/logger";
import type { PushConnectionStore } from "../store/push-connections";
import type { PushNotifier } from "./hub";
import { pushTokenExpired } from "./channel-end";

export interface ConnectionsDeps {
  /** The WebSocket API stage's management endpoint: `https://<api-id>.execute-api.<region>.amazonaws.com/<stage>`. */
  endpoint: string;
  region: string;
  connections: PushConnectionStore;
  log: Logger;
  /** The clock token expiry is judged by; default: the system's. */
  now?: () => Date;
  /** Explicit credentials (tests); default: the runtime's (the Lambda role). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

/** Posts to and closes WebSocket connections through API Gateway's management API. */
export class ApiGatewayConnections implements PushNotifier {
  private readonly client: ApiGatewayManagementApiClient;

  constructor(private readonly deps: ConnectionsDeps) {
    this.client = new ApiGatewayManagementApiClient({
      region: deps.region,
      endpoint: deps.endpoint,
      ...(deps.credentials ? { credentials: deps.credentials } : {}),
    });
  }

  /**
   * Tells every connection of the cluster; a connection API Gateway no longer has (410) is forgotten,
   * and one whose token has expired is closed and forgotten instead of told (docs/push.md).
   */
  async published(tenantId: string, cluster: string, generation: number): Promise<void> {
    const held = await this.deps.connections.held(tenantId, cluster);
    const now = this.deps.now?.() ?? new Date();
    await Promise.all(
      held.map(async (c) => {
        if (c.expiresAt !== undefined && !pushTokenExpired({ expiresAt: c.expiresAt }, now))
          return void (await this.post(tenantId, cluster, c.connectionId, { type: "generation", generation }));
        await this.close(c.connectionId);
        await this.deps.connections.remove(tenantId, cluster, c.connectionId);
      }),
    );
  }

  /** Sends one message; false when the connection is gone (and then forgotten). */
  async post(tenantId: string, cluster: string, connectionId: string, message: PushMessage): Promise<boolean> {
    try {
      await this.client.send(new PostToConnectionCommand({ ConnectionId: connectionId, Data: Buffer.from(JSON.stringify(message)) }));
      return true;
    } catch (error) {
      if (!(error instanceof GoneException) && (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode !== 410) throw error;
      await this.deps.connections.remove(tenantId, cluster, connectionId);
      return false;
    }
  }

  /** Closes a connection (an agent that broke the protocol); one already gone is fine. */
  async close(connectionId: string): Promise<void> {
    try {
      await this.client.send(new DeleteConnectionCommand({ ConnectionId: connectionId }));
    } catch (error) {
      if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode !== 410)
        this.deps.log.error("push: closing a connection failed", { connectionId, detail: (error as Error).message });
    }
  }
}
