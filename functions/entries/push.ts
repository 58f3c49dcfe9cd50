import { readEnv } from "./env";
import { createLogger } from "../shared/logger";
import { createDocumentClient } from "../store/client";
import { createStore } from "../store/index";
import { ApiGatewayConnections } from "../push/aws-notifier";
import { handleWebSocketEvent } from "../push/websocket-events";

// The push channel's composition root on AWS (docs/push.md): the WebSocket API's routes.
const env = readEnv();
if (!env.publicUrl || !env.pushEndpoint) throw new Error("MESHPLANE_PUBLIC_URL and MESHPLANE_PUSH_ENDPOINT are required by the push function");
const store = createStore({ doc: createDocumentClient({ region: env.region }), table: env.table, bootstrapTtlMs: env.bootstrapTtlMs });
const log = createLogger({ service: "push" });
const connections = new ApiGatewayConnections({ endpoint: env.pushEndpoint, region: env.region, connections: store.pushConnections, log });
const deps = { store, now: () => new Date(), log, publicUrl: env.publicUrl, close: (id: string) => connections.close(id) };

export const handler = (event: unknown) => handleWebSocketEvent(deps, event);
