#!/usr/bin/env bash
# Builds the lab's control plane from the Go module proxy and caches it outside the repo:
#   - kube-apiserver from the k8s.io/kubernetes module (staging modules replaced by their v0.Y.Z tags),
#   - etcd from go.etcd.io/etcd/server/v3 (a tiny main calling etcdmain.Main),
#   - the Istio CRDs (istio.io/api), the SMI CRDs (github.com/openservicemesh/osm) and the Gateway API
#     CRDs (sigs.k8s.io/gateway-api: the standard channel, which the lab installs, and the
#     experimental one, which alone has HTTPRoute's `retry`), converted to JSON arrays of
#     CustomResourceDefinition objects so the lab can POST them without a YAML parser.
# Idempotent: everything is cached by version under ${MESHPLANE_CACHE:-$HOME/.cache/meshplane}/lab;
# a second run only checks that the files exist. Versions come from scripts/lab/versions.env.
# Prints KEY=path lines on stdout (progress and timings go to stderr).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=versions.env
. "$here/versions.env"

CACHE="${MESHPLANE_CACHE:-$HOME/.cache/meshplane}"
LAB="$CACHE/lab"
BIN="$LAB/bin"
CRDS="$LAB/crds"
SRC="$LAB/src"
mkdir -p "$BIN" "$CRDS" "$SRC"

KUBE_APISERVER="$BIN/kube-apiserver-$KUBERNETES_VERSION"
ETCD="$BIN/etcd-$ETCD_VERSION"
ISTIO_CRDS="$CRDS/istio-api-$ISTIO_API_VERSION.json"
SMI_CRDS="$CRDS/smi-osm-$OSM_VERSION.json"
GATEWAY_API_CRDS="$CRDS/gateway-api-$GATEWAY_API_VERSION.json"
GATEWAY_API_EXPERIMENTAL_CRDS="$CRDS/gateway-api-experimental-$GATEWAY_API_VERSION.json"

log() { echo "[lab/build] $*" >&2; }

all_present() { [ -x "$KUBE_APISERVER" ] && [ -x "$ETCD" ] && [ -s "$ISTIO_CRDS" ] && [ -s "$SMI_CRDS" ] && [ -s "$GATEWAY_API_CRDS" ] && [ -s "$GATEWAY_API_EXPERIMENTAL_CRDS" ]; }

print_paths() {
  echo "KUBE_APISERVER=$KUBE_APISERVER"
  echo "ETCD=$ETCD"
  echo "ISTIO_CRDS=$ISTIO_CRDS"
  echo "SMI_CRDS=$SMI_CRDS"
  echo "GATEWAY_API_CRDS=$GATEWAY_API_CRDS"
  echo "GATEWAY_API_EXPERIMENTAL_CRDS=$GATEWAY_API_EXPERIMENTAL_CRDS"
}

if all_present; then
  print_paths
  exit 0
fi

command -v go >/dev/null || { log "go is not installed: the lab builds kube-apiserver and etcd with it"; exit 1; }

# One build at a time (parallel test workers may all ask for the binaries on a fresh machine).
exec 9>"$LAB/.build.lock"
flock 9

# Modules and their tags only; no toolchain downloads, no vendoring, no VCS stamping.
export GOFLAGS="-mod=mod -buildvcs=false"
export GOTOOLCHAIN="${GOTOOLCHAIN:-local}" # go.etcd.io/etcd/server/v3 v3.5.35 declares go 1.26.0
export CGO_ENABLED=0

# go mod download -json MODULE@VERSION, then print one field ("Dir" or "GoMod").
mod_field() {
  local json
  json="$(go mod download -json "$1")" || { echo "$json" >&2; return 1; }
  printf '%s\n' "$json" | sed -n "s/^[[:space:]]*\"$2\": \"\(.*\)\",\{0,1\}$/\1/p"
}

timed() { # timed LABEL LOGFILE cmd...
  local label="$1" logfile="$2" start end
  shift 2
  start=$(date +%s)
  if ! "$@" >"$logfile" 2>&1; then
    log "$label failed; last lines of $logfile:"
    tail -n 40 "$logfile" >&2
    return 1
  fi
  end=$(date +%s)
  log "$label took $((end - start))s"
}

build_kube_apiserver() {
  [ -x "$KUBE_APISERVER" ] && return 0
  local v="$KUBERNETES_VERSION" dir="$SRC/kube-apiserver-$KUBERNETES_VERSION" gomod staging minor
  # v1.34.4 -> staging modules at v0.34.4
  staging="v0.${v#v1.}"
  minor="${v#v1.}"; minor="${minor%%.*}"
  log "kube-apiserver $v (staging modules at $staging): downloading k8s.io/kubernetes go.mod"
  gomod="$(mod_field "k8s.io/kubernetes@$v" GoMod)"
  [ -f "$gomod" ] || { log "no go.mod for k8s.io/kubernetes@$v"; return 1; }
  mkdir -p "$dir"
  {
    echo "// Throwaway module: builds k8s.io/kubernetes/cmd/kube-apiserver $v for meshplane's lab."
    echo "module meshplane.invalid/lab/kube-apiserver"
    echo
    echo "go $(sed -n 's/^go \([0-9.]*\)$/\1/p' "$gomod")"
    echo
    echo "require k8s.io/kubernetes $v"
    echo
    echo "replace ("
    # every k8s.io/* staging module named in that version's go.mod
    sed -n 's#^[[:space:]]*\(k8s\.io/[^[:space:]]*\) => \./staging/src/.*$#\1#p' "$gomod" | sort -u | while read -r m; do
      echo "	$m => $m $staging"
    done
    echo ")"
  } >"$dir/go.mod"
  rm -f "$dir/go.sum"
  local ldflags="-s -w"
  ldflags+=" -X k8s.io/component-base/version.gitVersion=$v"
  ldflags+=" -X k8s.io/component-base/version.gitMajor=1"
  ldflags+=" -X k8s.io/component-base/version.gitMinor=$minor"
  ldflags+=" -X k8s.io/component-base/version.gitTreeState=clean"
  ldflags+=" -X k8s.io/component-base/version.buildDate=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  log "building kube-apiserver $v in $dir (log: $dir/build.log); the first build takes many minutes"
  (cd "$dir" && timed "go build kube-apiserver $v" "$dir/build.log" \
    go build -trimpath -ldflags "$ldflags" -o "$KUBE_APISERVER.tmp" k8s.io/kubernetes/cmd/kube-apiserver)
  mv -f "$KUBE_APISERVER.tmp" "$KUBE_APISERVER"
  log "kube-apiserver: $KUBE_APISERVER ($(du -h "$KUBE_APISERVER" | cut -f1))"
}

build_etcd() {
  [ -x "$ETCD" ] && return 0
  local v="$ETCD_VERSION" dir="$SRC/etcd-$ETCD_VERSION" gomod
  gomod="$(mod_field "go.etcd.io/etcd/server/v3@$v" GoMod)"
  [ -f "$gomod" ] || { log "no go.mod for go.etcd.io/etcd/server/v3@$v"; return 1; }
  mkdir -p "$dir"
  cat >"$dir/go.mod" <<EOF
// Throwaway module: builds etcd $v for meshplane's lab.
module meshplane.invalid/lab/etcd

go $(sed -n 's/^go \([0-9.]*\)$/\1/p' "$gomod")

require go.etcd.io/etcd/server/v3 $v
EOF
  cat >"$dir/main.go" <<'EOF'
// Command etcd is the etcd server, as etcd's own main.go builds it.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
EOF
  rm -f "$dir/go.sum"
  log "building etcd $v in $dir (log: $dir/build.log)"
  (cd "$dir" && timed "go build etcd $v" "$dir/build.log" \
    go build -trimpath -ldflags "-s -w" -o "$ETCD.tmp" .)
  mv -f "$ETCD.tmp" "$ETCD"
  log "etcd: $ETCD ($(du -h "$ETCD" | cut -f1))"
}

# A small YAML-to-JSON converter (sigs.k8s.io/yaml, the converter Kubernetes itself uses): reads
# multi-document YAML files and prints one JSON array of the non-empty documents.
YAML2JSON="$BIN/yaml2json-$SIGS_YAML_VERSION"
build_yaml2json() {
  [ -x "$YAML2JSON" ] && return 0
  local dir="$SRC/yaml2json-$SIGS_YAML_VERSION"
  mkdir -p "$dir"
  cat >"$dir/go.mod" <<EOF
module meshplane.invalid/lab/yaml2json

go 1.22

require sigs.k8s.io/yaml $SIGS_YAML_VERSION
EOF
  cat >"$dir/main.go" <<'EOF'
// Command yaml2json prints the YAML documents of its argument files as one JSON array.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"

	"sigs.k8s.io/yaml"
)

var separator = regexp.MustCompile(`(?m)^---[ \t]*$`)

func main() {
	docs := []json.RawMessage{}
	for _, path := range os.Args[1:] {
		data, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		for i, doc := range separator.Split(string(data), -1) {
			j, err := yaml.YAMLToJSON([]byte(doc))
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s: document %d: %v\n", path, i, err)
				os.Exit(1)
			}
			if s := strings.TrimSpace(string(j)); s == "" || s == "null" {
				continue
			}
			docs = append(docs, j)
		}
	}
	out, err := json.Marshal(docs)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Stdout.Write(append(out, '\n'))
}
EOF
  rm -f "$dir/go.sum"
  (cd "$dir" && timed "go build yaml2json" "$dir/build.log" go build -trimpath -ldflags "-s -w" -o "$YAML2JSON.tmp" .)
  mv -f "$YAML2JSON.tmp" "$YAML2JSON"
}

extract_crds() {
  if [ ! -s "$ISTIO_CRDS" ]; then
    local istio_dir istio_yaml
    istio_dir="$(mod_field "istio.io/api@$ISTIO_API_VERSION" Dir)"
    istio_yaml="$istio_dir/kubernetes/customresourcedefinitions.gen.yaml"
    [ -f "$istio_yaml" ] || { log "missing $istio_yaml"; return 1; }
    log "Istio CRDs: $istio_yaml"
    "$YAML2JSON" "$istio_yaml" >"$ISTIO_CRDS.tmp"
    mv -f "$ISTIO_CRDS.tmp" "$ISTIO_CRDS"
  fi
  if [ ! -s "$SMI_CRDS" ]; then
    local osm_dir
    osm_dir="$(mod_field "github.com/openservicemesh/osm@$OSM_VERSION" Dir)"
    [ -d "$osm_dir/cmd/osm-bootstrap/crds" ] || { log "missing $osm_dir/cmd/osm-bootstrap/crds"; return 1; }
    log "SMI CRDs: $osm_dir/cmd/osm-bootstrap/crds/smi_*.yaml"
    "$YAML2JSON" "$osm_dir"/cmd/osm-bootstrap/crds/smi_*.yaml >"$SMI_CRDS.tmp"
    mv -f "$SMI_CRDS.tmp" "$SMI_CRDS"
  fi
  gateway_api_crds standard "$GATEWAY_API_CRDS"
  gateway_api_crds experimental "$GATEWAY_API_EXPERIMENTAL_CRDS"
}

# gateway_api_crds CHANNEL OUT: every gateway.networking.k8s.io CRD of one channel of the Gateway API
# module as one JSON array. The experimental channel's x-k8s.io kinds are not taken (nothing uses them),
# nor its ValidatingAdmissionPolicy (vap_*), which is not a CRD.
gateway_api_crds() {
  local channel="$1" out="$2" gw_dir crds=()
  [ -s "$out" ] && return 0
  gw_dir="$(mod_field "sigs.k8s.io/gateway-api@$GATEWAY_API_VERSION" Dir)"
  for f in "$gw_dir/config/crd/$channel"/gateway.networking.k8s.io_*.yaml; do
    case "$f" in *_vap_*) ;; *) crds+=("$f") ;; esac
  done
  [ "${#crds[@]}" -gt 0 ] || { log "no CRDs in $gw_dir/config/crd/$channel"; return 1; }
  log "Gateway API CRDs: $gw_dir/config/crd/$channel (${#crds[@]} files)"
  "$YAML2JSON" "${crds[@]}" >"$out.tmp"
  mv -f "$out.tmp" "$out"
}

build_yaml2json
extract_crds
build_etcd
build_kube_apiserver

all_present || { log "some outputs are missing"; exit 1; }
print_paths
