/** Each Lambda function's entry point, relative to the repository root (the stack and test/bench use these). */
export const FUNCTION_ENTRIES = {
  api: "functions/entries/api.ts",
  worker: "functions/entries/worker.ts",
  maintenance: "functions/entries/maintenance.ts",
  bootstrap: "functions/entries/bootstrap-operator.ts",
  push: "functions/entries/push.ts",
  caSigner: "functions/entries/ca-signer.ts",
  metricsIngest: "functions/entries/metrics-ingest.ts",
} as const;

export type FunctionName = keyof typeof FUNCTION_ENTRIES;
