#!/usr/bin/env bash
# Prints the path of the kstatus helper: test/support/kstatus/main.go, a tiny command that reads
# Kubernetes objects as JSON on stdin and prints what kstatus (sigs.k8s.io/cli-utils/pkg/kstatus, the
# library Flux reads health with) computes for each, as JSON lines. Built once in a throwaway module
# (test/support/kstatus/go.mod.in, with GO_VERSION from scripts/lab/versions.env) and cached outside
# the repository under ${MESHPLANE_CACHE:-$HOME/.cache/meshplane}/kstatus, keyed by the source: a
# second run only checks the file. The first build downloads cli-utils and its Kubernetes
# dependencies: about a minute on two cores.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=lab/versions.env
. "$here/lab/versions.env"
src="$here/../test/support/kstatus"
CACHE="${MESHPLANE_CACHE:-$HOME/.cache/meshplane}/kstatus"
key="$(cat "$src/main.go" "$src/go.mod.in" | sha256sum | cut -c1-16)"
BIN="$CACHE/bin/kstatus-$key"
if [ ! -x "$BIN" ]; then
  command -v go >/dev/null || { echo "go is not installed: the kstatus helper is built with Go $GO_VERSION or later (npm test installs it)" >&2; exit 1; }
  mkdir -p "$CACHE/bin"
  # One build at a time (parallel test workers may all ask for the binary on a fresh machine).
  exec 9>"$CACHE/.build.lock"
  flock 9
  if [ ! -x "$BIN" ]; then
    dir="$CACHE/src/kstatus-$key"
    mkdir -p "$dir"
    sed "s/@GO_VERSION@/$GO_VERSION/" "$src/go.mod.in" >"$dir/go.mod"
    cp "$src/main.go" "$dir/main.go"
    rm -f "$dir/go.sum"
    # Modules and their tags only; no toolchain downloads, no vendoring, no VCS stamping.
    export GOFLAGS="-mod=mod -buildvcs=false" GOTOOLCHAIN="${GOTOOLCHAIN:-local}" CGO_ENABLED=0
    start=$(date +%s)
    echo "[kstatus] building the kstatus helper in $dir (log: $dir/build.log)" >&2
    if ! (cd "$dir" && go build -trimpath -ldflags "-s -w" -o "$BIN.tmp" .) >"$dir/build.log" 2>&1; then
      echo "[kstatus] build failed; last lines of $dir/build.log:" >&2
      tail -n 40 "$dir/build.log" >&2
      exit 1
    fi
    mv -f "$BIN.tmp" "$BIN"
    echo "[kstatus] built in $(($(date +%s) - start))s: $BIN ($(du -h "$BIN" | cut -f1))" >&2
  fi
fi
echo "$BIN"
