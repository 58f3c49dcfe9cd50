import { describe, expect, it } from "vitest";
import { readOptions } from "./options";

const JWKS = JSON.stringify({ keys: [{ kty: "EC", crv: "P-256", x: "a", y: "b", kid: "k1" }] });
const read = (path: string) => {
  if (path === "/keys.json") return JWKS;
  throw new Error(`ENOENT: ${path}`);
};

describe("readOptions", () => {
  it("reads flags, falls back to the environment, and fills defaults", () => {
    const o = readOptions(
      ["--cluster", "c1", "--poll-interval", "5"],
      { MESHPLANE_CONTROL_PLANE_URL: "https://api.example.com/", MESHPLANE_TRUSTED_KEYS_FILE: "/keys.json", POD_NAME: "agent-0" },
      read,
    );
    expect(o).toMatchObject({
      controlPlaneUrl: "https://api.example.com",
      cluster: "c1",
      namespace: "meshplane-system",
      pollIntervalMs: 5000,
      pollJitter: 0.2,
      resyncIntervalMs: 300_000,
      identity: "agent-0",
      leaseName: "meshplane-agent",
    });
    expect(o.trustedKeys.map((k) => k.kid)).toEqual(["k1"]);
    expect(o.certificates).toEqual({ enabled: true, adoptExistingCacerts: false, autoRestartPods: false, restartPauseMs: 30_000 });
  });

  it("polls every 5 minutes by default with the push channel on, every 15 s with it off", () => {
    const env = { MESHPLANE_CONTROL_PLANE_URL: "https://api.example.com", MESHPLANE_TRUSTED_KEYS_FILE: "/keys.json" };
    expect(readOptions(["--cluster", "c1"], env, read).pollIntervalMs).toBe(300_000);
    expect(readOptions(["--cluster", "c1", "--push=false"], env, read).pollIntervalMs).toBe(15_000);
    expect(readOptions(["--cluster", "c1", "--push=false", "--poll-interval", "30"], env, read).pollIntervalMs).toBe(30_000);
  });

  it("reads the certificate options the chart passes", () => {
    const o = readOptions(
      ["--cluster", "c1", "--certificates=false", "--adopt-existing-cacerts=true", "--restart-pause=5"],
      { MESHPLANE_CONTROL_PLANE_URL: "https://api.example.com", MESHPLANE_TRUSTED_KEYS_FILE: "/keys.json", MESHPLANE_AUTO_RESTART_PODS: "true" },
      read,
    );
    expect(o.certificates).toEqual({ enabled: false, adoptExistingCacerts: true, autoRestartPods: true, restartPauseMs: 5000 });
  });

  it.each([
    ["http://127.0.0.1:8080", []],
    ["http://localhost:8080", []],
    ["http://[::1]:8080", []],
    ["http://host.docker.internal:8080", ["--allow-insecure-control-plane=true"]],
  ])("accepts http only on loopback or when allowed: %s %j", (url, extra) => {
    const o = readOptions(["--cluster", "c1", "--control-plane-url", url, ...extra], { MESHPLANE_TRUSTED_KEYS_FILE: "/keys.json" }, read);
    expect(o.controlPlaneUrl).toBe(url);
  });

  it("reads a push URL of its own (AWS: a WebSocket API beside the HTTP API)", () => {
    const o = readOptions(
      ["--cluster", "c1", "--push-url", "wss://abc123.execute-api.eu-west-1.amazonaws.com/live"],
      { MESHPLANE_CONTROL_PLANE_URL: "https://api.example.com", MESHPLANE_TRUSTED_KEYS_FILE: "/keys.json" },
      read,
    );
    expect(o.pushUrl).toBe("wss://abc123.execute-api.eu-west-1.amazonaws.com/live");
  });

  it("reads nothing of Prometheus unless a URL is set, and the metrics options the chart passes", () => {
    const env = { MESHPLANE_CONTROL_PLANE_URL: "https://api.example.com", MESHPLANE_TRUSTED_KEYS_FILE: "/keys.json" };
    expect(readOptions(["--cluster", "c1"], env, read).metrics).toBeUndefined();
    expect(readOptions(["--cluster", "c1", "--prometheus-url=http://prom:9090", "--metrics=false"], env, read).metrics).toBeUndefined();
    const o = readOptions(
      ["--cluster", "c1", "--prometheus-url=http://prom.monitoring:9090", "--prometheus-auth=basic", "--prometheus-org-id=acme", "--metrics-send-every=60"],
      { ...env, MESHPLANE_ISTIO_CLUSTER_ID: "east", MESHPLANE_METRICS_MAX_EDGES: "500" },
      read,
    );
    expect(o.metrics).toEqual({
      prometheus: {
        url: "http://prom.monitoring:9090",
        auth: { type: "basic", usernameFile: "/etc/meshplane/prometheus/username", passwordFile: "/etc/meshplane/prometheus/password" },
        orgId: "acme",
        timeoutMs: 20_000,
        maxSeries: 100_000,
        maxBodyBytes: 32 * 1024 * 1024,
      },
      intervalMs: 60_000,
      sendEveryMs: 60_000,
      maxEdges: 500,
      settleMs: 30_000,
      istioClusterId: "east",
    });
  });

  it("refuses plain http elsewhere, saying why", () => {
    expect(() =>
      readOptions(["--cluster", "c1", "--control-plane-url", "http://api.example.com"], { MESHPLANE_TRUSTED_KEYS_FILE: "/keys.json" }, read),
    ).toThrow(
      expect.objectContaining({
        errors: [expect.objectContaining({ message: expect.stringContaining("bootstrap token and the agent's credentials would cross the network in clear") })],
      }),
    );
  });

  it.each([
    [["--cluster", "Bad_Name"], "--cluster (MESHPLANE_CLUSTER)"],
    [["--cluster", "c1", "--poll-interval", "0"], "--poll-interval (MESHPLANE_POLL_INTERVAL_SECONDS)"],
    [["--cluster", "c1", "--control-plane-url", "ftp://x"], "--control-plane-url (MESHPLANE_CONTROL_PLANE_URL)"],
    [["--cluster", "c1", "--trusted-keys-file", "/missing.json"], "--trusted-keys-file"],
    [["--cluster", "c1", "--auto-restart-pods", "yes"], "--auto-restart-pods (MESHPLANE_AUTO_RESTART_PODS)"],
    [["--cluster", "c1", "--control-plane-url", "http://meshplane.example.com"], "--control-plane-url (MESHPLANE_CONTROL_PLANE_URL)"],
    [
      ["--cluster", "c1", "--control-plane-url", "http://10.0.0.5:8080", "--allow-insecure-control-plane", "maybe"],
      "--allow-insecure-control-plane (MESHPLANE_ALLOW_INSECURE_CONTROL_PLANE)",
    ],
    [["--cluster", "c1", "--push-url", "https://push.example.com"], "--push-url (MESHPLANE_PUSH_URL)"],
    [["--cluster", "c1", "--push-url", "ws://push.example.com"], "--push-url (MESHPLANE_PUSH_URL)"],
    [["--cluster", "c1", "--metrics-send-every", "30"], "--metrics-send-every (MESHPLANE_METRICS_SEND_EVERY_SECONDS)"],
    [["--cluster", "c1", "--metrics-send-every", "901"], "--metrics-send-every (MESHPLANE_METRICS_SEND_EVERY_SECONDS)"],
    [["--cluster", "c1", "--metrics-max-edges", "1001"], "--metrics-max-edges (MESHPLANE_METRICS_MAX_EDGES)"],
    [["--cluster", "c1", "--prometheus-auth", "oauth"], "--prometheus-auth (MESHPLANE_PROMETHEUS_AUTH)"],
    [["--cluster", "c1", "--prometheus-url", "prom:9090"], "--prometheus-url (MESHPLANE_PROMETHEUS_URL)"],
    [["--cluster", "c1", "--istio-cluster-id", "east cluster"], "--istio-cluster-id (MESHPLANE_ISTIO_CLUSTER_ID)"],
  ])("names the bad option in %j", (argv, path) => {
    try {
      readOptions(argv, { MESHPLANE_CONTROL_PLANE_URL: "https://api.example.com", MESHPLANE_TRUSTED_KEYS_FILE: "/keys.json" }, read);
      expect.unreachable();
    } catch (error) {
      expect((error as { errors: { path: string }[] }).errors.map((e) => e.path)).toContain(path);
    }
  });

  it("reads the authoring options the chart passes; off by default", () => {
    const env = { MESHPLANE_CONTROL_PLANE_URL: "https://api.example.com", MESHPLANE_TRUSTED_KEYS_FILE: "/keys.json" };
    expect(readOptions(["--cluster", "c1"], env, read).authoring).toBeUndefined();
    expect(readOptions(["--cluster", "c1", "--authoring=true"], env, read).authoring).toEqual({ namespaces: [], syncEveryMs: 300_000, statusEveryMs: 30_000 });
    const o = readOptions(
      ["--cluster", "c1", "--authoring=true", "--authoring-namespaces", "shop, bank,shop", "--authoring-sync-every=60"],
      { ...env, MESHPLANE_AUTHORING_STATUS_EVERY_SECONDS: "5" },
      read,
    );
    expect(o.authoring).toEqual({ namespaces: ["bank", "shop"], syncEveryMs: 60_000, statusEveryMs: 5000 });
    expect(() => readOptions(["--cluster", "c1", "--authoring=true", "--authoring-namespaces", "Shop"], env, read)).toThrow(/invalid agent options/);
  });
});
