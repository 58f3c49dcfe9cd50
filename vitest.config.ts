import { defineConfig } from "vitest/config";

// Tiers: unit tests sit next to pure modules; integration, istio and e2e tests start real processes
// (DynamoDB Local, fauxqs, Istio's config generation, kube-apiserver) and live under test/.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          include: [
            "packages/*/src/**/*.test.ts",
            "functions/**/*.test.ts",
            "infra/**/*.test.ts",
            "test/golden/**/*.test.ts",
            "test/discovery/**/*.test.ts",
            "test/support/**/*.test.ts",
            "test/properties/**/*.test.ts",
            "test/scripts/**/*.test.ts",
            "test/docs/**/*.test.ts",
          ],
          exclude: ["**/node_modules/**"],
        },
      },
      {
        test: {
          name: "integration",
          include: ["test/integration/**/*.test.ts"],
          globalSetup: ["test/integration/global-setup.ts"],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          // Every bench of test/bench at a tiny size, through `npm run bench`: it must finish and print its JSON line.
          name: "bench",
          include: ["test/bench/**/*.test.ts"],
          // One DynamoDB Local shared by the benches (BENCH_DYNAMODB_ENDPOINT, test/bench/_harness.ts), as the integration tier shares one.
          globalSetup: ["test/integration/global-setup.ts"],
          testTimeout: 300_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          // Istio's own code (test/istio/judge, built by scripts/istio-judge.sh) judges generated config.
          name: "istio",
          include: ["test/istio/**/*.test.ts", "test/metrics/**/*.test.ts", "test/gitops/**/*.test.ts"],
          testTimeout: 120_000,
        },
      },
      {
        test: {
          // The web console in Debian's Chromium against the local control plane (`npm start`'s process).
          name: "browser",
          include: ["test/browser/**/*.test.ts"],
          testTimeout: 120_000,
          hookTimeout: 300_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          // Real kube-apiservers and agent processes; the binaries are built before (scripts/test.sh).
          name: "e2e",
          include: ["test/e2e/**/*.test.ts", "test/lab/**/*.test.ts"],
          globalSetup: ["test/integration/global-setup.ts"],
          testTimeout: 180_000,
          hookTimeout: 600_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
