#!/usr/bin/env bash
# The contract tier: Schemathesis (a property-based fuzzer, from PyPI) generates requests from
# /openapi.json — valid and invalid ones — and checks every answer against the same document: no 5xx,
# only documented statuses, content types, headers and body schemas, invalid input refused. It runs
# against a real local control plane (functions/local/main.ts, DynamoDB Local in memory, the SQS
# emulator) started here with a tenant and operator, admin and viewer credentials. Derandomized and
# bounded (test/contract/schemathesis.toml), so a run is the same every time. Schemathesis is
# installed once into a venv cached outside the repository under
# ${MESHPLANE_CACHE:-$HOME/.cache/meshplane}/schemathesis. Exit status: Schemathesis's (0 = no failure).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
SCHEMATHESIS_VERSION=4.32.5
CACHE="${MESHPLANE_CACHE:-$HOME/.cache/meshplane}/schemathesis"
VENV="$CACHE/venv-$SCHEMATHESIS_VERSION"
if [ ! -x "$VENV/bin/st" ]; then
  mkdir -p "$CACHE"
  exec 9>"$CACHE/.install.lock"
  flock 9
  if [ ! -x "$VENV/bin/st" ]; then
    # Debian's python3 has no ensurepip until python3-venv is installed (npm test installs it).
    python3 -c 'import ensurepip, venv' 2>/dev/null || { echo "[contract] python3's venv module is missing: install python3-venv (Debian/Ubuntu) or a python3 with ensurepip" >&2; exit 1; }
    echo "[contract] installing schemathesis $SCHEMATHESIS_VERSION into $VENV" >&2
    rm -rf "$VENV.tmp"
    python3 -m venv "$VENV.tmp"
    "$VENV.tmp/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION" >&2
    rm -rf "$VENV" && mv "$VENV.tmp" "$VENV"
    # A venv's scripts name their interpreter by absolute path: rewrite them for the final place.
    grep -rlI "$VENV.tmp" "$VENV/bin" | xargs -r sed -i "s#$VENV.tmp#$VENV#g"
  fi
  exec 9>&-
fi

export AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED=true
work="$(mktemp -d)"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
url="http://127.0.0.1:$port"
# Budgets no fuzzer run reaches: 429 is documented, but a run spent on 429s would test nothing else.
MESHPLANE_RATE_LIMITS="read=1000000,write=1000000,plan=1000000,agent=1000000,operator=1000000,refused=1000000" \
  node node_modules/tsx/dist/cli.mjs functions/local/main.ts --in-memory --port "$port" --data-dir "$work/state" >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 600); do
  grep -q "listening on" "$work/server.log" && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log" >&2; exit 1; }
  sleep 0.1
done
grep -q "listening on" "$work/server.log" || { echo "[contract] the control plane did not start" >&2; cat "$work/server.log" >&2; exit 1; }
operator="$(sed -n 's/.*operator credential.*: \(mpo_[A-Za-z0-9_-]*\).*/\1/p' "$work/server.log")"
admin="$(sed -n 's/.*admin token.*: \(mpt_[A-Za-z0-9_-]*\).*/\1/p' "$work/server.log")"
viewer="$(python3 - "$url" "$admin" <<'PY'
import json, sys, urllib.request
url, admin = sys.argv[1], sys.argv[2]
body = json.dumps({"name": "contract-viewer", "role": "viewer"}).encode()
req = urllib.request.Request(f"{url}/v1/tokens", data=body, method="POST", headers={"authorization": f"Bearer {admin}", "content-type": "application/json"})
print(json.load(urllib.request.urlopen(req))["token"])
PY
)"

export MESHPLANE_CONTRACT_OPERATOR="$operator" MESHPLANE_CONTRACT_ADMIN="$admin" MESHPLANE_CONTRACT_VIEWER="$viewer"
export SCHEMATHESIS_HOOKS=hooks PYTHONPATH="$root/test/contract"
start=$(date +%s)
status=0
# From the scratch directory: Schemathesis keeps a cache (.schemathesis/) in the one it runs in.
(cd "$work" && "$VENV/bin/st" --config-file "$root/test/contract/schemathesis.toml" run "$url/openapi.json" --no-color "$@") || status=$?
echo "[contract] schemathesis finished in $(($(date +%s) - start))s with status $status" >&2
if [ "$status" -ne 0 ] && grep -q '"level":"error"' "$work/server.log"; then
  echo "[contract] server errors logged:" >&2
  grep '"level":"error"' "$work/server.log" | tail -n 20 >&2
fi
exit "$status"
