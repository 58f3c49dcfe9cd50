/**
 * What `npm run lab` does and prints with golden signals on (docs/observability.md#trying-it): the
 * traffic model written live into each cluster's Prometheus, what to look at, then the change on cart
 * followed by its error burst, and the impact naming it once the API shows it.
 */
import type { ChangeImpact } from "@meshplane/core";
import { eventually } from "../e2e/lab-agents";
import type { ControlPlane } from "../support/control-plane";
import { type LiveTraffic, startLiveTraffic } from "./live-traffic";
import { LAB_CLUSTERS } from "./traffic-fixture";
import { CART, CART_CHANGE, MODEL_CLUSTERS, type TrafficLab, makeChange, placeModel } from "./traffic-lab";

const clock = (epochSeconds: number) => new Date(epochSeconds * 1000).toISOString().slice(11, 16);

/**
 * Starts the live traffic, prints what to look at, makes the change at its minute and prints the
 * impact once `GET /v1/metrics/impacts` has it; answers the live traffic (stop it with the lab) and
 * the story's end. `print` writes a block of lines.
 */
export async function trafficStory(
  cp: ControlPlane,
  admin: string,
  lab: TrafficLab,
  print: (text: string) => void,
): Promise<{ traffic: LiveTraffic; done: Promise<void> }> {
  const { model, changeAt } = placeModel(Date.now());
  const traffic = await startLiveTraffic(model, lab.prometheus, {
    onError: (e) => print(`writing live traffic failed (tried again in 15 s): ${(e as Error).message}`),
  });
  const prometheus = MODEL_CLUSTERS.map((c) => `${LAB_CLUSTERS[c]} ${lab.prometheus[c].url}`).join(", ");
  print(`
Golden signals: the traffic model (test/metrics/traffic-model.ts) is written into each cluster's Prometheus
(${prometheus}) as time passes; each agent reads its own every minute, 30 s after the minute ends.
Look at (from the first full minute on, two minutes from now):
  meshplane top destinations; meshplane top edges --sort errors
  meshplane describe destination ${CART}
  the console's graph: ${cp.url}/#/graph   (sign in with the admin token above)
At ${clock(changeAt)} UTC the lab applies TrafficPolicy ${CART_CHANGE.metadata.name} to cart; cart's error burst starts the minute after.`);
  const done = (async () => {
    const clusters = await makeChange(cp, admin, changeAt);
    print(`TrafficPolicy ${CART_CHANGE.metadata.name} applied in ${clusters.join(", ")}; waiting for cart's burst to be read (about three minutes) …`);
    const impact = await eventually(
      "the change's impact",
      async () => {
        const res = await cp.request("GET", "/v1/metrics/impacts?window=15m", { token: admin });
        return ((await res.json()) as { impacts: ChangeImpact[] }).impacts.find((i) => i.destination === CART);
      },
      600_000,
    );
    print(`
Impact: ${impact.message}
  meshplane describe destination ${CART}   (its Signals block: the change and the impact)
  the console's overview lists it among the problems: ${cp.url}/#/   and cart's charts: ${cp.url}/#/destinations/${CART}`);
  })();
  return { traffic, done };
}
