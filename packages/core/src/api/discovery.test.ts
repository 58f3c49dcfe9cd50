import { describe, expect, it } from "vitest";
import { destinationSpec, workloadSpec } from "./discovery";

const destination = {
  name: "reviews",
  namespace: "bookinfo",
  cluster: "c1",
  mesh: "m",
  labels: {},
  selector: {},
  ports: [],
  subsets: {},
  endpoints: [],
  workloads: [],
};
const workload = { kind: "Deployment", name: "reviews-v1", namespace: "bookinfo", cluster: "c1", mesh: "m", labels: {}, serviceAccount: "reviews" };

describe("names an agent reports (docs/resources.md#generated-objects)", () => {
  it("takes a Service's name as Kubernetes allows it", () => {
    expect(destinationSpec.safeParse(destination).success).toBe(true);
  });

  // A Service name with a '.' could equal a generated name (`reviews.waypoint`) and collide with it.
  it.each(["reviews.waypoint", "Reviews", "-reviews", "r".repeat(64)])("refuses the Service name %j, naming the field", (name) => {
    const result = destinationSpec.safeParse({ ...destination, name });
    expect(result.error?.issues.map((i) => i.path.join("."))).toEqual(["name"]);
  });

  it.each(["reviews", "reviews.v1"])("takes the service account %j", (serviceAccount) => {
    expect(workloadSpec.safeParse({ ...workload, serviceAccount }).success).toBe(true);
  });

  it.each(["", "a/ns/b/sa/c", "*", "x".repeat(254)])("refuses the service account %j, naming the field", (serviceAccount) => {
    const result = workloadSpec.safeParse({ ...workload, serviceAccount });
    expect(result.error?.issues.map((i) => i.path.join("."))).toEqual(["serviceAccount"]);
  });
});
