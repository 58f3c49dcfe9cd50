export { type SnapshotPayload, SNAPSHOT_TYPE, snapshotAudience, snapshotEtag, snapshotPayload } from "./payload";
export { type RejectReason, type VerifyOptions, SnapshotRejectedError, verifySnapshot } from "./verify";
