#!/usr/bin/env bash
# Prints the path of a helm binary, building it once from its Go module through the Go module proxy
# (cached outside the repository, like the lab's kube-apiserver). Tests use it for `helm lint` and
# `helm template` of the agent chart.
set -euo pipefail
HELM_VERSION="${HELM_VERSION:-v3.21.4}"
CACHE="${MESHPLANE_CACHE:-$HOME/.cache/meshplane}/tools"
BIN="$CACHE/helm-$HELM_VERSION"
if [ ! -x "$BIN" ]; then
  mkdir -p "$CACHE"
  tmp="$(mktemp -d)"
  echo "building helm $HELM_VERSION from its Go module (first run only)" >&2
  CGO_ENABLED=0 GOBIN="$tmp" go install -trimpath -ldflags "-s -w" "helm.sh/helm/v3/cmd/helm@$HELM_VERSION" >&2
  mv "$tmp/helm" "$BIN"
  rm -rf "$tmp"
fi
echo "$BIN"
