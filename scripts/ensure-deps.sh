#!/usr/bin/env bash
# Installs what `npm start` and `npm test` need, so a fresh clone runs with those two commands alone:
# the npm dependencies (when missing or older than the lock file) and, with --java (the test suite):
#   - Debian packages, when missing: a Java runtime for DynamoDB Local, zsh and fish for the CLI's
#     completion tests, Lua 5.4 (lua5.4) for the Argo CD health check's tests, Chromium for the
#     console's browser tests, Go (golang-go) for the lab's kube-apiserver, etcd and helm, the Istio
#     judge and the kstatus helper, and python3 with its venv module (python3-venv) for the contract
#     tier's Schemathesis;
#   - the Go toolchain the builds need (GO_VERSION in scripts/lab/versions.env) when the installed Go
#     is older, as the Go module golang.org/toolchain, linked under
#     ${MESHPLANE_CACHE:-$HOME/.cache/meshplane}/go/bin (scripts/test.sh puts it first on PATH).
# Where it cannot install (no apt-get, or neither root nor sudo) it stops with one line saying what
# to install. `npm start` leaves Java to the user: it says in one line what to install.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  # `npm install --no-save` rather than `npm ci`: it brings an existing node_modules up to the lock
  # file in place (`npm ci` deletes it and installs everything again) and leaves the lock file as it is.
  echo "installing npm dependencies"
  npm install --no-save --no-audit --no-fund --loglevel=error
fi
[ "${1:-}" = "--java" ] || exit 0

# version_at_least HAVE WANT: true when version HAVE (1.19.8) is WANT (1.26.0) or later.
version_at_least() { [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n 1)" = "$2" ]; }

missing=()
java -version >/dev/null 2>&1 || missing+=(openjdk-17-jre-headless)
command -v zsh >/dev/null 2>&1 || missing+=(zsh)
command -v fish >/dev/null 2>&1 || missing+=(fish)
# The Argo CD health check (packages/agent/health/argocd.lua) runs in Debian's Lua 5.4 (test/gitops).
command -v lua5.4 >/dev/null 2>&1 || missing+=(lua5.4)
# The console's browser tests drive Debian's Chromium (playwright-core, no bundled browser).
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
# Any Go will do: an older one fetches the toolchain the builds need (below).
command -v go >/dev/null 2>&1 || missing+=(golang-go)
# Debian's python3 comes without ensurepip, so `python3 -m venv` fails until python3-venv is installed.
command -v python3 >/dev/null 2>&1 || missing+=(python3)
python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || missing+=(python3-venv)
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then SUDO=""; elif command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else SUDO="none"; fi
  if ! command -v apt-get >/dev/null 2>&1 || [ "$SUDO" = none ]; then
    echo "install ${missing[*]} (Debian/Ubuntu packages the tests use; installing them here needs apt-get and root or sudo)" >&2
    exit 1
  fi
  echo "installing ${missing[*]} (Debian packages the tests use)"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# The Go toolchain: the installed Go when it is recent enough, else go$GO_VERSION fetched once by it.
# shellcheck source=lab/versions.env
. scripts/lab/versions.env
link="${MESHPLANE_CACHE:-$HOME/.cache/meshplane}/go/bin"
# The installed Go's own version, not one a go.mod or GOTOOLCHAIN would switch to.
have="$(cd / && GOTOOLCHAIN=local GOFLAGS= go env GOVERSION)"
have="${have#go}"; have="${have%% *}"
if version_at_least "$have" "$GO_VERSION"; then
  rm -f "$link/go" "$link/gofmt"
  exit 0
fi
if [ -x "$link/go" ] && [ "$("$link/go" env GOVERSION 2>/dev/null)" = "go$GO_VERSION" ]; then exit 0; fi
echo "Go $have is older than the go $GO_VERSION the builds need: fetching go$GO_VERSION (the Go module golang.org/toolchain)"
if version_at_least "$have" 1.21; then
  # Go 1.21 and later switch toolchains themselves (into the module cache, executable).
  goroot="$(cd / && GOTOOLCHAIN="go$GO_VERSION" GOFLAGS= go env GOROOT)"
else
  # Older Go (Debian 12's golang-go is 1.19) cannot switch, but downloads the same module; module
  # files are stored without execute bits, so set them on the commands as Go's own switch does.
  module="golang.org/toolchain@v0.0.1-go$GO_VERSION.$(go env GOOS)-$(go env GOARCH)"
  goroot="$(cd / && GOFLAGS=-mod=mod go mod download -json "$module" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')"
  [ -n "$goroot" ] && [ -f "$goroot/bin/go" ] || { echo "could not download $module: install Go $GO_VERSION or later" >&2; exit 1; }
  find "$goroot/bin" "$goroot/pkg/tool" -type f -exec chmod a+x {} +
fi
mkdir -p "$link"
ln -sfn "$goroot/bin/go" "$link/go"
ln -sfn "$goroot/bin/gofmt" "$link/gofmt"
"$link/go" version
