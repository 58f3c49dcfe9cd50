/**
 * The flooding tenant of the fairness bench, in a process of its own as another client would be:
 * FLOODERS loops, one in four planning and the rest listing, each sending its next request as soon
 * as the last is answered. It says "flooding" once every loop has had an answer; on "stop" from its
 * parent it sends the answers counted by status (0: no answer, the connection failed).
 */
const [url, token, flooders] = [process.argv[2] as string, process.argv[3] as string, Number(process.argv[4])];
const plan = JSON.stringify({
  documents: [{ apiVersion: "meshplane.dev/v1", kind: "TrafficPolicy", metadata: { name: "planned" }, spec: { policy: { requestTimeout: "1s" } } }],
});
const counts: Record<number, number> = {};
const state = { flooding: true };
let answered = 0;
/** The status of one request of loop `i`, or 0 when it got no answer (the connection failed). */
async function send(i: number): Promise<number> {
  try {
    const res =
      i % 4 === 0
        ? await fetch(`${url}/v1/plan`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: plan })
        : await fetch(`${url}/v1/trafficpolicies`, { headers: { authorization: `Bearer ${token}` } });
    await res.arrayBuffer();
    return res.status;
  } catch {
    // A moment before the next try: failing connections in a tight loop would starve this process's
    // event loop, and the parent's "stop" would never be read.
    await new Promise((r) => setTimeout(r, 10));
    return 0;
  }
}
const loops = Array.from({ length: flooders }, async (_, i) => {
  while (state.flooding) {
    const status = await send(i);
    counts[status] = (counts[status] ?? 0) + 1;
    // Loaded and in its stride once every loop has had an answer: the parent starts measuring then.
    if (++answered === flooders) process.send?.("flooding");
  }
});
// Its parent gone (the bench failed), it stops instead of flooding nobody.
process.on("disconnect", () => process.exit(1));
process.on("message", async (message) => {
  if (message !== "stop") return;
  state.flooding = false;
  await Promise.all(loops);
  process.send?.(counts, () => process.exit(0));
});
