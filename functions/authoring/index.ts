/** Resources authored in clusters, the control plane's side (docs/gitops.md#the-agent-protocol): submit, delete, sync, read back. */
export { authoredPage, authoredView } from "./read";
export { deleteResources, syncResources } from "./remove";
export { type AuthoringDeps, submitResources } from "./submit";
