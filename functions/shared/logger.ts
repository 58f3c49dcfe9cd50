/** Structured JSON logs, one line per event. Callers never pass credentials or request bodies. */
export interface Logger {
  info(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

export function createLogger(base: Record<string, unknown> = {}, sink: (line: string) => void = (l) => process.stdout.write(`${l}\n`)): Logger {
  const emit = (level: string, msg: string, fields?: Record<string, unknown>) =>
    sink(JSON.stringify({ level, time: new Date().toISOString(), msg, ...base, ...fields }));
  return {
    info: (msg, fields) => emit("info", msg, fields),
    error: (msg, fields) => emit("error", msg, fields),
    child: (fields) => createLogger({ ...base, ...fields }, sink),
  };
}

/** Error details for logs: name, message and stack, and the same for its cause. */
export function describeError(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { error: String(error) };
  return {
    error: { name: error.name, message: error.message, stack: error.stack, ...(error.cause ? { cause: describeError(error.cause) } : {}) },
  };
}
