/**
 * The push channel's server side in one process (`npm start`, tests): agents open a WebSocket at
 * PUSH_PATH on the API's own port, authenticated like any agent call, and are told each new
 * generation of their cluster's snapshot (docs/push.md). On AWS the same protocol runs on an API
 * Gateway WebSocket API; only how connections are held and reached differs.
 */
import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import { MAX_PUSH_MESSAGE_BYTES, PUSH_PATH, type PushMessage, agentPushMessage } from "@meshplane/core/base";
import { type WebSocket, WebSocketServer } from "ws";
import { TOKEN_EXPIRED_REASON, pushClusterEnded, pushTokenExpired } from "./channel-end";
import { type PushOpening, authenticatePushOpening } from "./opening";
import type { Logger } from "../shared/logger";
import type { Store } from "../store/index";

/** What the worker tells when it publishes: the local hub, or on AWS the connections' endpoint. */
export interface PushNotifier {
  published(tenantId: string, cluster: string, generation: number): void | Promise<void>;
}

export interface HubOptions {
  store: Store;
  now: () => Date;
  log: Logger;
  /** The API's base URL, the audience of agent JWTs; default: http://<Host header>. */
  publicUrl?: string;
  /** Connections one cluster may hold (an agent's replicas): more are refused. */
  maxPerCluster?: number;
  /** Connections the process holds at most. */
  maxConnections?: number;
  /**
   * How often the hub pings each connection (one that has not answered the previous ping is dropped)
   * and closes those whose token expired, reading the heads of the clusters it holds connections for
   * to close those of a cluster deregistered or given a new agent key.
   */
  pingMs?: number;
}

/** WebSocket close codes (RFC 6455 §7.4.1). */
const POLICY_VIOLATION = 1008;
const GOING_AWAY = 1001;
/** The token the channel was opened with expired (a private code, RFC 6455 §7.4.2): reconnect. */
const TOKEN_EXPIRED = 4001;

const key = (tenantId: string, cluster: string) => `${tenantId}/${cluster}`;
const STATUS_TEXT: Record<number, string> = { 401: "Unauthorized", 404: "Not Found", 429: "Too Many Requests", 503: "Service Unavailable" };

export class PushHub implements PushNotifier {
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: MAX_PUSH_MESSAGE_BYTES });
  private readonly byCluster = new Map<string, Set<WebSocket>>();
  private readonly alive = new WeakMap<WebSocket, boolean>();
  private readonly openings = new WeakMap<WebSocket, PushOpening>();
  private sweeping = false;
  private readonly timer: NodeJS.Timeout;
  private count = 0;
  private closed = false;

  constructor(private readonly options: HubOptions) {
    this.timer = setInterval(() => void this.sweep(), options.pingMs ?? 30_000);
    this.timer.unref();
  }

  /** Handles upgrades to PUSH_PATH on `server`; other upgrade requests are refused. */
  attach(server: Server): void {
    server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => void this.upgrade(req, socket, head));
  }

  /** Connections held now, by cluster. */
  connections(tenantId: string, cluster: string): number {
    return this.byCluster.get(key(tenantId, cluster))?.size ?? 0;
  }

  get size(): number {
    return this.count;
  }

  published(tenantId: string, cluster: string, generation: number): void {
    this.send(this.byCluster.get(key(tenantId, cluster)), { type: "generation", generation });
  }

  /** Drops every connection and refuses new ones (503): agents go on polling and retry later. */
  close(): void {
    this.closed = true;
    clearInterval(this.timer);
    for (const set of this.byCluster.values()) for (const ws of set) ws.close(GOING_AWAY, "the control plane is stopping");
    this.wss.close();
  }

  private async upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const refuse = (status: number, why: string) => {
      socket.end(`HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? "Refused"}\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\n${why}\n`);
    };
    if (this.closed) return refuse(503, "the push channel is closed; poll");
    if (new URL(req.url ?? "/", "http://x").pathname !== PUSH_PATH) return refuse(404, "no WebSocket here");
    let identity: PushOpening;
    try {
      identity = await authenticatePushOpening(req.headers.authorization, {
        store: this.options.store,
        now: this.options.now,
        apiUrl: this.options.publicUrl ?? `http://${req.headers.host ?? ""}`,
      });
    } catch (error) {
      return refuse(401, (error as Error).message);
    }
    const k = key(identity.tenantId, identity.cluster);
    const size = this.connections(identity.tenantId, identity.cluster);
    if (size >= (this.options.maxPerCluster ?? 4)) return refuse(429, `cluster ${identity.cluster} already holds ${size} push connections`);
    if (this.count >= (this.options.maxConnections ?? 20_000)) return refuse(429, "the control plane holds as many push connections as it may");
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      // Looked up again: another upgrade of the cluster may have completed meanwhile.
      const set = this.byCluster.get(k) ?? new Set<WebSocket>();
      this.byCluster.set(k, set);
      set.add(ws);
      this.count++;
      this.alive.set(ws, true);
      this.openings.set(ws, identity);
      ws.on("pong", () => this.alive.set(ws, true));
      ws.on("message", (data, binary) => this.received(ws, data as Buffer, binary));
      ws.on("close", () => {
        if (set.delete(ws)) this.count--;
        if (set.size === 0 && this.byCluster.get(k) === set) this.byCluster.delete(k);
      });
      ws.on("error", () => ws.terminate());
      this.send(new Set([ws]), { type: "generation", generation: identity.head.snapshot?.generation ?? 0 });
    });
  }

  /** Agents may only ping; anything else closes the channel (the agent falls back to polling). */
  private received(ws: WebSocket, data: Buffer, binary: boolean): void {
    let parsed;
    try {
      parsed = binary ? undefined : agentPushMessage.safeParse(JSON.parse(data.toString("utf8")));
    } catch {
      parsed = undefined;
    }
    if (!parsed?.success) {
      ws.close(POLICY_VIOLATION, 'the only message an agent may send is {"type":"ping"}');
      return;
    }
    this.alive.set(ws, true);
    this.send(new Set([ws]), { type: "pong" });
  }

  private send(set: ReadonlySet<WebSocket> | undefined, message: PushMessage): void {
    if (set === undefined) return;
    const text = JSON.stringify(message);
    for (const ws of set) if (ws.readyState === ws.OPEN) ws.send(text);
  }

  /**
   * Drops connections that did not answer the last ping and pings the rest; then closes those whose
   * token expired, or whose cluster was deregistered or got a new agent key meanwhile (one batched
   * read per tenant). A channel so ends at the first round after its end, as on AWS at the first event.
   */
  private async sweep(): Promise<void> {
    for (const set of this.byCluster.values()) {
      for (const ws of set) {
        if (this.alive.get(ws) === false) {
          ws.terminate();
          continue;
        }
        this.alive.set(ws, false);
        ws.ping();
      }
    }
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      await this.closeEnded();
    } catch (error) {
      this.options.log.error("push: reading the clusters of open channels failed", { detail: (error as Error).message });
    } finally {
      this.sweeping = false;
    }
  }

  /** Closes every channel whose token expired or whose cluster is gone, being deregistered, or holds another agent key. */
  private async closeEnded(): Promise<void> {
    const byTenant = new Map<string, string[]>();
    for (const k of this.byCluster.keys()) {
      const [tenantId, cluster] = k.split("/") as [string, string];
      const clusters = byTenant.get(tenantId);
      if (clusters === undefined) byTenant.set(tenantId, [cluster]);
      else clusters.push(cluster);
    }
    for (const [tenantId, clusters] of byTenant) {
      const heads = await this.options.store.snapshots.heads(tenantId, clusters);
      const now = this.options.now();
      for (const cluster of clusters) {
        for (const ws of this.byCluster.get(key(tenantId, cluster)) ?? []) {
          const opening = this.openings.get(ws);
          if (opening === undefined) continue;
          if (pushTokenExpired(opening, now)) ws.close(TOKEN_EXPIRED, TOKEN_EXPIRED_REASON);
          else {
            const why = pushClusterEnded(opening, heads.get(cluster));
            if (why) ws.close(POLICY_VIOLATION, why);
          }
        }
      }
    }
  }
}
