#!/usr/bin/env bash
# `npm start`: install what is missing, then run the local control plane (arguments pass through).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
export AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED=true
exec node node_modules/tsx/dist/cli.mjs functions/local/main.ts "$@"
