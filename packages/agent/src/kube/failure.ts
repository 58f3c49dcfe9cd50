/**
 * Why the apiserver, or the way to it, refused a call — one type per way the agent reacts to it or
 * reports it. The message is always the apiserver's own (or the network's): it is what status
 * reports carry, word for word.
 *
 * - `not-found`: 404 — the object, or the API group of its kind, is not there.
 * - `not-served`: the group is served but has no such kind (a CRD of another version).
 * - `conflict`: 409 — another writer changed the object first, or it already exists.
 * - `forbidden`: 403 — the agent's RBAC does not allow the call, or an admission plugin or webhook
 *   answered 403; the code does not tell them apart, so every 403 names the chart value to change.
 * - `refused-by-admission`: an admission webhook or policy denied the object with another code.
 * - `invalid`: 400 or 422 — the apiserver's validation refused the object.
 * - `expired`: 410 — a watch's resourceVersion is too old: list again.
 * - `transient`: no answer, 429 or 5xx — worth trying again later.
 * - `unexpected`: anything else.
 */
export type KubeFailureType =
  | "not-found"
  | "not-served"
  | "conflict"
  | "forbidden"
  | "refused-by-admission"
  | "invalid"
  | "expired"
  | "transient"
  | "unexpected";

export interface KubeFailure {
  type: KubeFailureType;
  message: string;
}

// How the apiserver words a denial by an admission webhook ("admission webhook %q denied the
// request") and by a ValidatingAdmissionPolicy ("ValidatingAdmissionPolicy '…' with binding '…'
// denied request").
const ADMISSION_DENIAL = /admission webhook ".*" denied the request|ValidatingAdmissionPolicy .* denied request/;

/**
 * The type of an apiserver answer with HTTP status `status` (0: there was none) and the message of
 * its Status object: the one place a Kubernetes status becomes a KubeFailureType.
 */
export function failureType(status: number, message: string): KubeFailureType {
  if (status === 403) return "forbidden";
  if ((status === 400 || status === 422) && ADMISSION_DENIAL.test(message)) return "refused-by-admission";
  if (status === 0 || status === 429 || status >= 500) return "transient";
  const byStatus: Record<number, KubeFailureType> = { 400: "invalid", 404: "not-found", 409: "conflict", 410: "expired", 422: "invalid" };
  return byStatus[status] ?? "unexpected";
}

/** A Kubernetes API error with its HTTP status, the server's message (what users need to read) and its type. */
export class KubeError extends Error {
  readonly type: KubeFailureType;

  constructor(
    readonly status: number,
    message: string,
    /** Given only where the agent refuses a call itself before any answer (status 0). */
    type?: KubeFailureType,
  ) {
    super(message);
    this.type = type ?? failureType(status, message);
  }
}

/** Any error a Kubernetes call threw, typed: a KubeError keeps its type, anything else is `unexpected`. */
export function failureOf(error: unknown): KubeFailure {
  if (error instanceof KubeError) return { type: error.type, message: error.message };
  return { type: "unexpected", message: (error as Error).message };
}

/** Whether a Kubernetes call failed with `type`. */
export const failedWith = (error: unknown, type: KubeFailureType): boolean => error instanceof KubeError && error.type === type;
