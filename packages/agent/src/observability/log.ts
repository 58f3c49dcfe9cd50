/** JSON log lines on stdout; never a key, a token or a snapshot body. */
export interface Logger {
  info(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

export function createLogger(base: Record<string, unknown>, sink: (line: string) => void = (l) => process.stdout.write(`${l}\n`)): Logger {
  const emit = (level: string, msg: string, fields?: Record<string, unknown>) =>
    sink(JSON.stringify({ level, time: new Date().toISOString(), msg, ...base, ...fields }));
  return { info: (m, f) => emit("info", m, f), error: (m, f) => emit("error", m, f) };
}
