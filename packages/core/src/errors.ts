/** Root of every error meshplane raises on purpose; anything else reaching an edge is a bug. */
export class MeshplaneError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

export interface FieldError {
  path: string;
  message: string;
}

/** Input that failed validation; `errors` name each field by its dotted path. */
export class ValidationError extends MeshplaneError {
  constructor(
    message: string,
    readonly errors: FieldError[],
  ) {
    super(message);
  }
}
