#!/usr/bin/env bash
# Prints the path of the Istio judge (test/istio/judge): a small Go program built from the
# istio.io/istio module that computes the Envoy configuration istiod sends each proxy and loads
# `cacerts` bundles with Istio's CA code. Built once per Istio version and judge source, cached
# outside the repository under ${MESHPLANE_CACHE:-$HOME/.cache/meshplane}/istio. The first build
# downloads Istio's dependencies and compiles them: many minutes on two cores.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
# shellcheck source=lab/versions.env
. "$here/lab/versions.env"
CACHE="${MESHPLANE_CACHE:-$HOME/.cache/meshplane}/istio"
src_hash="$(cat "$root"/test/istio/judge/*.go | sha256sum | cut -c1-12)"
BIN="$CACHE/bin/judge-$ISTIO_VERSION-$src_hash"
if [ ! -x "$BIN" ]; then
  command -v go >/dev/null || { echo "go is not installed: the Istio judge is built with Go $GO_VERSION or later (npm test installs it)" >&2; exit 1; }
  mkdir -p "$CACHE/bin"
  exec 9>"$CACHE/.build.lock"
  flock 9
  if [ ! -x "$BIN" ]; then
    dir="$CACHE/src/judge-$ISTIO_VERSION"
    mkdir -p "$dir"
    rm -f "$dir"/*.go
    cp "$root"/test/istio/judge/*.go "$dir/"
    cat >"$dir/go.mod" <<MOD
// Throwaway module: builds meshplane's Istio judge against istio.io/istio $ISTIO_VERSION.
module meshplane.invalid/istio/judge

go $GO_VERSION

require istio.io/istio $ISTIO_VERSION
MOD
    export GOFLAGS="-mod=mod -buildvcs=false" GOTOOLCHAIN="${GOTOOLCHAIN:-local}" CGO_ENABLED=0
    start=$(date +%s)
    echo "[istio-judge] building against istio.io/istio $ISTIO_VERSION in $dir (log: $dir/build.log)" >&2
    if ! (cd "$dir" && go mod tidy && go build -trimpath -ldflags "-s -w" -o "$BIN.tmp" .) >"$dir/build.log" 2>&1; then
      echo "[istio-judge] build failed; last lines of $dir/build.log:" >&2
      tail -n 40 "$dir/build.log" >&2
      exit 1
    fi
    mv -f "$BIN.tmp" "$BIN"
    find "$CACHE/bin" -name "judge-*" ! -path "$BIN" -delete
    echo "[istio-judge] built in $(($(date +%s) - start))s: $BIN" >&2
  fi
fi
echo "$BIN"
