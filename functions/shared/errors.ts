import { MeshplaneError } from "@meshplane/core/base";

/** The addressed thing does not exist for this tenant (or belongs to another: never say which). */
export class NotFoundError extends MeshplaneError {}
/** A create hit an existing name, or a write raced a concurrent one that is not a precondition. */
export class ConflictError extends MeshplaneError {}
/** `If-Match` named a resourceVersion that is no longer current. */
export class PreconditionFailedError extends MeshplaneError {}
export class UnauthorizedError extends MeshplaneError {}
export class ForbiddenError extends MeshplaneError {}
export class PayloadTooLargeError extends MeshplaneError {}
/** Over a limit that a later attempt may be within (HTTP 429). */
export class TooManyRequestsError extends MeshplaneError {}
