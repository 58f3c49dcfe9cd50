/**
 * The agent's end of the push channel (docs/push.md): a WebSocket to the control plane that says
 * when a new generation of this cluster's snapshot exists, so the agent fetches it at once instead of
 * at its next poll. What arrives is only a hint: the agent then fetches and verifies the signed
 * snapshot exactly as a poll does, so a forged, lost or repeated message can cause a fetch or a
 * delay, never an apply. Polling goes on underneath; the channel reconnects with spread, bounded
 * backoff (reconnectDelayMs), and pings every 9 minutes (API Gateway drops idle connections at 10).
 */
import { MAX_PUSH_MESSAGE_BYTES, pushMessage, pushUrl, reconnectDelayMs } from "@meshplane/core";
import { WebSocket } from "ws";
import type { Logger } from "../observability/log";

export interface PushDeps {
  controlPlaneUrl: string;
  /** The channel's URL when it is not on the control plane's origin (AWS); default pushUrl(controlPlaneUrl). */
  pushUrl?: string;
  /** A fresh agent JWT for the upgrade request (bound to GET). */
  token: () => Promise<string>;
  /**
   * A generation the control plane announced — or, with none, the channel (re)opened: a generation
   * published while it was down would otherwise wait for the next poll.
   */
  onGeneration: (generation?: number) => void;
  log: Logger;
  pingMs?: number;
  random?: () => number;
}

export class PushChannel {
  private ws: WebSocket | undefined;
  private attempt = 0;
  private stopped = false;
  private retry: NodeJS.Timeout | undefined;
  private ping: NodeJS.Timeout | undefined;
  /** True while the channel is open (a metric and readiness detail, never a condition for syncing). */
  connected = false;

  constructor(private readonly deps: PushDeps) {}

  start(): void {
    void this.connect();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.retry);
    clearInterval(this.ping);
    this.ws?.terminate();
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    let token: string;
    try {
      token = await this.deps.token();
    } catch (error) {
      this.deps.log.error("push channel: no token", { detail: (error as Error).message });
      return this.again();
    }
    const ws = new WebSocket(this.deps.pushUrl ?? pushUrl(this.deps.controlPlaneUrl), {
      headers: { authorization: `Bearer ${token}` },
      maxPayload: MAX_PUSH_MESSAGE_BYTES,
      handshakeTimeout: 10_000,
    });
    this.ws = ws;
    ws.on("open", () => {
      this.attempt = 0;
      this.connected = true;
      this.ping = setInterval(() => ws.readyState === ws.OPEN && ws.send('{"type":"ping"}'), this.deps.pingMs ?? 9 * 60_000);
      this.ping.unref();
      this.deps.onGeneration();
    });
    ws.on("message", (data, binary) => {
      let parsed;
      try {
        parsed = binary ? undefined : pushMessage.safeParse(JSON.parse(String(data)));
      } catch {
        parsed = undefined;
      }
      // Nothing here is trusted beyond "look now": a bad message is only logged.
      if (!parsed?.success) return this.deps.log.error("push channel: ignored a malformed message", {});
      if (parsed.data.type === "generation") this.deps.onGeneration(parsed.data.generation);
    });
    ws.on("unexpected-response", (_req, res) => {
      this.deps.log.error("push channel refused; polling goes on", { status: res.statusCode });
      ws.terminate();
    });
    ws.on("error", (error) => this.deps.log.error("push channel failed; polling goes on", { detail: error.message }));
    ws.on("close", () => {
      this.connected = false;
      clearInterval(this.ping);
      this.again();
    });
  }

  private again(): void {
    if (this.stopped) return;
    clearTimeout(this.retry);
    this.retry = setTimeout(() => void this.connect(), reconnectDelayMs(this.attempt++, this.deps.random));
    this.retry.unref();
  }
}
