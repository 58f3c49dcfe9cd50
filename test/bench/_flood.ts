/**
 * The flooding tenant of the fairness bench, in a process of its own as another client would be:
 * FLOODERS loops, one in four planning and the rest listing, each sending its next request as soon
 * as the last is answered. It says "flooding" once every loop has had an answer; on "stop" from its
 * parent it sends the answers counted by status.
 */
const [url, token, flooders] = [process.argv[2] as string, process.argv[3] as string, Number(process.argv[4])];
const plan = JSON.stringify({ documents: [{ apiVersion: "meshplane.dev/v1", kind: "TrafficPolicy", metadata: { name: "planned" }, spec: { policy: { requestTimeout: "1s" } } }] });
const counts: Record<number, number> = {};
const state = { flooding: true };
let answered = 0;
const loops = Array.from({ length: flooders }, async (_, i) => {
  while (state.flooding) {
    const res =
      i % 4 === 0
        ? await fetch(`${url}/v1/plan`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: plan })
        : await fetch(`${url}/v1/trafficpolicies`, { headers: { authorization: `Bearer ${token}` } });
    await res.arrayBuffer();
    counts[res.status] = (counts[res.status] ?? 0) + 1;
    // Loaded and in its stride once every loop has had an answer: the parent starts measuring then.
    if (++answered === flooders) process.send?.("flooding");
  }
});
process.on("message", async (message) => {
  if (message !== "stop") return;
  state.flooding = false;
  await Promise.all(loops);
  process.send?.(counts, () => process.exit(0));
});
