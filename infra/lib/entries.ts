/** Each Lambda function's entry point, relative to the repository root (the stack and test/bench use these). */
export const FUNCTION_ENTRIES = {
  api: "functions/api/handler.ts",
  worker: "functions/worker/lambda.ts",
  maintenance: "functions/ops/maintenance-lambda.ts",
  bootstrap: "functions/ops/bootstrap-operator.ts",
  push: "functions/push/lambda.ts",
  caSigner: "functions/ca-signer/lambda.ts",
} as const;

export type FunctionName = keyof typeof FUNCTION_ENTRIES;
