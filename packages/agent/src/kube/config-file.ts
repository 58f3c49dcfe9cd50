import { KubeConfig } from "@kubernetes/client-node";

/** A kubeconfig file as @kubernetes/client-node reads it (exec plugins, auth providers, proxies…). */
export function loadKubeConfig(file: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(file);
  return kc;
}
