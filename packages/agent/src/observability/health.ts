import { type Server, createServer } from "node:http";
import type { Metrics } from "./metrics";

/**
 * /healthz (the process runs), /readyz (the leader: registered and a sync cycle finished; a follower:
 * always, since it stands by), /metrics (Prometheus text). Listens on all interfaces so the
 * kubelet's probes reach it; it serves nothing secret.
 */
export function startHealthServer(port: number, deps: { metrics: Metrics; ready: () => boolean }): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.url === "/healthz") return void res.writeHead(200, { "content-type": "text/plain" }).end("ok\n");
    if (req.url === "/readyz") {
      const ready = deps.ready();
      return void res.writeHead(ready ? 200 : 503, { "content-type": "text/plain" }).end(ready ? "ready\n" : "not ready\n");
    }
    if (req.url === "/metrics") return void res.writeHead(200, { "content-type": "text/plain; version=0.0.4" }).end(deps.metrics.render());
    res.writeHead(404).end();
  });
  return new Promise((ok, fail) => {
    server.once("error", fail);
    server.listen(port, () => ok(server));
  });
}
