#!/usr/bin/env bash
# The whole test suite: lint, typecheck, then every vitest tier against real DynamoDB Local and the
# SQS emulator. Prints one closing line "Tests: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
export AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED=true

bash scripts/ensure-deps.sh --java || exit 1
# The Go toolchain ensure-deps.sh fetched when the installed Go is older than the builds need; and
# Go may fetch a newer one still if a module it builds asks for it (an installed Go's go.env may say `local`).
gobin="${MESHPLANE_CACHE:-$HOME/.cache/meshplane}/go/bin"
if [ -x "$gobin/go" ]; then export PATH="$gobin:$PATH"; fi
export GOTOOLCHAIN="${GOTOOLCHAIN:-auto}"

echo "== lint"
node_modules/.bin/oxlint -c .oxlintrc.json --deny-warnings . || exit 1
# One formatting for every TypeScript file (biome.json); `npm run format` writes it.
node_modules/.bin/biome format . || { echo "files above are not formatted: run npm run format" >&2; exit 1; }
echo "== typecheck"
node_modules/.bin/tsc --noEmit -p tsconfig.json || exit 1
node_modules/.bin/tsc --noEmit -p packages/console/tsconfig.json || exit 1

echo "== lab binaries (kube-apiserver, etcd, CRDs, helm; built once from Go modules, then cached)"
bash scripts/lab/build.sh >/dev/null || exit 1
bash scripts/helm.sh >/dev/null || exit 1
bash scripts/prometheus.sh >/dev/null || exit 1
# kstatus (sigs.k8s.io/cli-utils), which reads meshplane custom resources as Flux does (docs/gitops.md#flux).
bash scripts/kstatus.sh >/dev/null || exit 1
echo "== Istio judge (Istio's config generation and CA code; built once from the istio.io/istio module, then cached)"
bash scripts/istio-judge.sh >/dev/null || exit 1

work="$(mktemp -d)"
report="$work/vitest.json"
# The contract tier runs first and writes to a log: its fuzzer prints a pytest-style summary, and the
# suite's own figures (vitest's summary, then the closing line) should be the last thing printed.
echo "== contract (Schemathesis against a local control plane; installed once into a cached venv)"
contract=0
bash scripts/contract.sh >"$work/contract.log" 2>&1 || contract=1
if [ "$contract" -eq 0 ]; then
  grep -E '[0-9]+ generated|^\[contract\]' "$work/contract.log" || true
else
  echo "[contract] FAILED; the end of its log:"
  tail -n 200 "$work/contract.log"
fi
echo "== tests (unit, integration, istio, browser, e2e, bench: every bench at a tiny size)"
node_modules/.bin/vitest run --reporter=default --reporter=json --outputFile.json="$report"
status=$?
[ "$contract" -eq 0 ] || status=1
# The contract run counts as one test in the closing line.
node -e '
  const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  const contractFailed = process.argv[2] === "1";
  const passed = r.numPassedTests + (contractFailed ? 0 : 1), failed = r.numFailedTests + (contractFailed ? 1 : 0);
  console.log(`Tests: ${passed} passed, ${failed} failed` + (r.numPendingTests ? `, ${r.numPendingTests} skipped` : ""));
' "$report" "$contract" 2>/dev/null || echo "Tests: 0 passed, 1 failed"
exit $status
