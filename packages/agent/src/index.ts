// The agent's public entry: the composition root, its options, the control-plane client (the local
// launcher and the tests drive the protocol with it) and the apply and prune the agent runs.
export { AGENT_VERSION, type RunningAgent, startAgent } from "./agent";
export { type AgentClient, type AgentKey, type ClientOptions, ControlPlaneClient, type SnapshotAnswer } from "./control-plane/client";
export { type AgentOptions, type CertificateOptions, DEFAULT_POLL_SECONDS, DEFAULT_POLL_WITH_PUSH_SECONDS, readOptions } from "./options";
export { GENERATED_KIND_VERBS, type Scope, ownedBy, ownedSelector, ownerLabels } from "./ownership";
export { APPLY_CONCURRENCY, type ApplyOutcome, applyObjects } from "./stages/apply";
export { type ObjectError } from "./stages/object-results";
export { pruneUndesired } from "./stages/prune";
