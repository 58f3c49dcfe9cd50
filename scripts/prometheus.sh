#!/usr/bin/env bash
# Prints the path of a Prometheus server built from the github.com/prometheus/prometheus Go module
# (PROMETHEUS_VERSION in scripts/lab/versions.env), for the tests that load a traffic model into a
# real Prometheus (test/support/prometheus). Built once per version in a throwaway module, cached outside
# the repository under ${MESHPLANE_CACHE:-$HOME/.cache/meshplane}/prometheus; a second run only checks
# the file. Tags: netgo (pure-Go resolver) and remove_all_sd (no service discovery but file and HTTP:
# the tests have no scrape jobs). No web UI assets: the HTTP API, /-/ready and /api/v1/write all work.
# The first build downloads Prometheus' dependencies and compiles them: minutes on two cores.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=lab/versions.env
. "$here/lab/versions.env"
CACHE="${MESHPLANE_CACHE:-$HOME/.cache/meshplane}/prometheus"
BIN="$CACHE/bin/prometheus-$PROMETHEUS_VERSION"
if [ ! -x "$BIN" ]; then
  command -v go >/dev/null || { echo "go is not installed: Prometheus is built with Go $GO_VERSION or later (npm test installs it)" >&2; exit 1; }
  mkdir -p "$CACHE/bin"
  # One build at a time (parallel test workers may all ask for the binary on a fresh machine).
  exec 9>"$CACHE/.build.lock"
  flock 9
  if [ ! -x "$BIN" ]; then
    # Module v0.X.Y is Prometheus 2.X.Y below X = 300, and v0.3MM.P is Prometheus 3.MM.P.
    minor="${PROMETHEUS_VERSION#v0.}"; patch="${minor#*.}"; minor="${minor%%.*}"
    if [ "$minor" -ge 300 ]; then release="3.$((minor - 300)).$patch"; else release="2.$minor.$patch"; fi
    dir="$CACHE/src/prometheus-$PROMETHEUS_VERSION"
    mkdir -p "$dir"
    cat >"$dir/go.mod" <<MOD
// Throwaway module: builds Prometheus $release (github.com/prometheus/prometheus $PROMETHEUS_VERSION) for meshplane's tests.
module meshplane.invalid/prometheus

go $GO_VERSION

require github.com/prometheus/prometheus $PROMETHEUS_VERSION
MOD
    rm -f "$dir/go.sum"
    ldflags="-s -w"
    ldflags+=" -X github.com/prometheus/common/version.Version=$release"
    ldflags+=" -X github.com/prometheus/common/version.Revision=$PROMETHEUS_VERSION"
    # Modules and their tags only; no toolchain downloads, no vendoring, no VCS stamping.
    export GOFLAGS="-mod=mod -buildvcs=false" GOTOOLCHAIN="${GOTOOLCHAIN:-local}" CGO_ENABLED=0
    start=$(date +%s)
    echo "[prometheus] building Prometheus $release ($PROMETHEUS_VERSION) in $dir (log: $dir/build.log)" >&2
    if ! (cd "$dir" && go build -trimpath -tags netgo,remove_all_sd -ldflags "$ldflags" -o "$BIN.tmp" \
      github.com/prometheus/prometheus/cmd/prometheus) >"$dir/build.log" 2>&1; then
      echo "[prometheus] build failed; last lines of $dir/build.log:" >&2
      tail -n 40 "$dir/build.log" >&2
      exit 1
    fi
    mv -f "$BIN.tmp" "$BIN"
    echo "[prometheus] built in $(($(date +%s) - start))s: $BIN ($(du -h "$BIN" | cut -f1))" >&2
  fi
fi
echo "$BIN"
