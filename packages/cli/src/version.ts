declare const MESHPLANE_CLI_VERSION: string | undefined;

/** Set by the bundle (scripts/build-cli.ts) from packages/cli/package.json; a dev build says so. */
export const VERSION = typeof MESHPLANE_CLI_VERSION === "string" ? MESHPLANE_CLI_VERSION : "0.0.0-dev";
