/**
 * `npm run lab`: a complete local world to try meshplane in — the control plane (DynamoDB Local, the
 * SQS emulator, the API and its worker) and two real Kubernetes API servers seeded with a Bookinfo-like
 * app on Istio, each with an agent running under the chart's RBAC. Ctrl-C stops everything.
 */
import { join } from "node:path";
import { benchPlane } from "../bench/_harness";
import { type LabAgent, startLabAgent } from "../e2e/lab-agents";
import { FIXTURES } from "../support/agents";
import type { ControlPlane } from "../support/control-plane";

const plane = await benchPlane({ worker: true });
const admin = ((await (await plane.request("POST", "/v1/tenants", plane.operatorToken, { name: "lab" })).json()) as { adminToken: string }).adminToken;
// startLabAgent needs only these parts of the test harness's control plane.
const cp = {
  url: plane.url,
  signer: plane.signer,
  request: (method: string, path: string, o: { token?: string; body?: unknown } = {}) => plane.request(method, path, o.token ?? "", o.body),
} as unknown as ControlPlane;
const agents: LabAgent[] = [];
const stop = async () => {
  await Promise.all(agents.map((a) => a.stop()));
  await plane.stop();
  process.exit(0);
};
process.once("SIGINT", () => void stop());
process.once("SIGTERM", () => void stop());
agents.push(await startLabAgent(cp, admin, "cluster-east", join(FIXTURES, "istio-bookinfo.yaml")));
agents.push(await startLabAgent(cp, admin, "cluster-west", join(FIXTURES, "istio-revision-eastwest.yaml")));

console.log(`meshplane lab is up
  control plane    ${plane.url}   (tenant "lab", admin token: ${admin})
  operator token   ${plane.operatorToken}`);
for (const a of agents) {
  console.log(`  ${a.name.padEnd(16)} ${a.cluster.url}   kubeconfig: ${await a.cluster.writeKubeconfig()}   agent metrics: http://127.0.0.1:${await a.healthPort()}/metrics`);
}
console.log(`
Try:
  export MP=${plane.url} TOKEN=${admin}
  curl -s $MP/v1/destinations -H "Authorization: Bearer $TOKEN"
  curl -s -X POST $MP/v1/trafficpolicies -H "Authorization: Bearer $TOKEN" -H 'content-type: application/json' -d '{"apiVersion":"meshplane.dev/v1","kind":"TrafficPolicy","metadata":{"name":"reviews-timeout"},"spec":{"destinationSelector":[{"kubeServiceRefs":{"services":[{"cluster":"cluster-east","namespace":"bookinfo","name":"reviews"}]}}],"policy":{"requestTimeout":"5s"}}}'
  KUBECONFIG=<cluster-east kubeconfig above> kubectl get virtualservices -A     (or curl the apiserver with the kubeconfig's token)
Ctrl-C stops everything.`);
