/** Resources authored in clusters (docs/gitops.md): grants, the agent protocol, and the status written back. */
export { GrantStep, type Refused } from "./apply";
export { type AuthoredStatus, type Condition, MAX_STATUS_ENTRIES, type RefusalReason, type Submission, authoredStatus } from "./conditions";
export { type AuthoringGrant, DEFAULT_GRANT_KINDS, EVERY_CLUSTER, authoringGrant, clipToGrant, grantErrors, grantOf } from "./grant";
export {
  type AuthoredList,
  type AuthoredView,
  type CrRef,
  type DeleteRequest,
  type DeleteResponse,
  MAX_AUTHORED_BATCH,
  MAX_AUTHORED_PER_CLUSTER,
  type SubmitRequest,
  type SubmitResponse,
  type SubmitResult,
  type SubmittedResource,
  type SyncRequest,
  authoredList,
  authoredView,
  crRef,
  deleteRequest,
  deleteResponse,
  submitRequest,
  submitResponse,
  submitResult,
  submittedResource,
  syncRequest,
  syncResponse,
} from "./protocol";
