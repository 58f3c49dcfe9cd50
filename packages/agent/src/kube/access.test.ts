import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { inClusterAccess, kubeconfigAccess, simpleKubeconfig } from "./access";

const kubeconfig = (cluster: string, user: string, extra = "") =>
  [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    "- name: c",
    "  cluster:",
    cluster,
    "users:",
    "- name: u",
    "  user:",
    user,
    "contexts:",
    "- name: x",
    "  context:",
    "    cluster: c",
    "    user: u",
    extra,
    "current-context: x",
  ].join("\n");

describe("simpleKubeconfig", () => {
  it("reads a token and an inline CA, and the context's namespace", async () => {
    const access = simpleKubeconfig(
      kubeconfig(
        `    server: https://127.0.0.1:6443/\n    certificate-authority-data: ${Buffer.from("CA").toString("base64")}`,
        "    token: abc",
        "    namespace: ns",
      ),
      "/nowhere/config",
    );
    expect(access?.server).toBe("https://127.0.0.1:6443");
    expect(access?.defaultNamespace).toBe("ns");
    const connection = await access?.connect();
    expect(connection?.headers).toEqual({ authorization: "Bearer abc" });
    expect(connection?.tls.ca?.toString()).toBe("CA");
    // The same TLS object while nothing changed: connections stay pooled.
    expect((await access?.connect())?.tls).toBe(connection?.tls);
  });

  it("reads client certificate files relative to the kubeconfig, and skip-verify and the server name", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kubeconfig-"));
    writeFileSync(join(dir, "cert.pem"), "CERT");
    writeFileSync(join(dir, "key.pem"), "KEY");
    const access = simpleKubeconfig(
      kubeconfig(
        "    server: https://kube.example:443\n    insecure-skip-tls-verify: true\n    tls-server-name: kubernetes",
        "    client-certificate: cert.pem\n    client-key: key.pem",
      ),
      join(dir, "config"),
    );
    const connection = await access?.connect();
    expect(connection?.headers).toEqual({});
    expect(connection?.tls).toEqual({ cert: Buffer.from("CERT"), key: Buffer.from("KEY"), rejectUnauthorized: false, servername: "kubernetes" });
    expect(access?.defaultNamespace).toBe("default");
  });

  it.each([
    ["an exec plugin", kubeconfig("    server: https://k:6443", "    exec:\n      command: aws")],
    ["an auth provider", kubeconfig("    server: https://k:6443", "    auth-provider:\n      name: oidc")],
    ["basic auth", kubeconfig("    server: https://k:6443", "    username: a\n    password: b")],
    ["impersonation", kubeconfig("    server: https://k:6443", "    token: t\n    as: someone")],
    ["a proxy", kubeconfig("    server: https://k:6443\n    proxy-url: http://proxy:3128", "    token: t")],
    ["plain http", kubeconfig("    server: http://k:8080", "    token: t")],
    ["no current context", "clusters: []"],
  ])("leaves a kubeconfig with %s to @kubernetes/client-node", (_what, text) => {
    expect(simpleKubeconfig(text, "/nowhere/config")).toBeUndefined();
  });
});

describe("kubeconfigAccess", () => {
  it("has @kubernetes/client-node read a kubeconfig it does not read itself", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "kubeconfig-")), "config");
    writeFileSync(file, kubeconfig("    server: https://k:6443/", "    username: a\n    password: b", "    namespace: ns"));
    const access = await kubeconfigAccess(file);
    expect(access.server).toBe("https://k:6443");
    expect(access.defaultNamespace).toBe("ns");
    expect((await access.connect()).headers.authorization).toBe(`Basic ${Buffer.from("a:b").toString("base64")}`);
  });
});

describe("inClusterAccess", () => {
  it("uses the service's address, the service account's CA, token and namespace", async () => {
    const dir = mkdtempSync(join(tmpdir(), "serviceaccount-"));
    writeFileSync(join(dir, "ca.crt"), "CA");
    writeFileSync(join(dir, "token"), "tok");
    writeFileSync(join(dir, "namespace"), "meshplane-system");
    const access = inClusterAccess({ KUBERNETES_SERVICE_HOST: "fd00::1", KUBERNETES_SERVICE_PORT: "443" }, dir);
    expect(access.server).toBe("https://[fd00::1]:443");
    expect(access.defaultNamespace).toBe("meshplane-system");
    const connection = await access.connect();
    expect(connection.headers).toEqual({ authorization: "Bearer tok" });
    expect(connection.tls.ca?.toString()).toBe("CA");
  });
});
