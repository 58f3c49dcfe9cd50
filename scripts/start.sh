#!/usr/bin/env bash
# `npm start`: install what is missing, then run the local control plane (arguments pass through).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
export AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED=true
# The web console the control plane serves at / (rebuilt only when its sources changed).
node node_modules/tsx/dist/cli.mjs scripts/build-console.ts --if-stale >/dev/null
exec node node_modules/tsx/dist/cli.mjs functions/local/main.ts "$@"
