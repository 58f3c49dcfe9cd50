// Resources authored in the cluster (docs/gitops.md#the-agent): the meshplane custom resources watched,
// submitted to the control plane coalesced, deleted there behind a finalizer, and their status written back.
export { AUTHORING_FLAGS, type AuthoringOptions, authoringFlags, authoringOptions } from "./options";
export { AUTHORED_KINDS, type AuthoredKind, type CustomResource, FINALIZER, collectionPath, objectPath, submissionOf } from "./objects";
export { CoalescingQueue, type Taken } from "./queue";
export { mergePatchOf, nextStatus, sameStatus, submissionFor } from "./status";
export { type AuthoringCounters, AuthoringSync, type AuthoringSyncDeps } from "./sync";
export { type StartAuthoringDeps, startAuthoring } from "./start";
export { CustomResourceWatch } from "./watch";
export { type KnownSubmission, StatusWriteBack, type StatusWriteBackDeps } from "./write-back";
