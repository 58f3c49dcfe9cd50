// Command judge asks Istio's own code what our generated configuration does. It is test
// infrastructure for meshplane (never shipped): scripts/istio-judge.sh builds it from the
// istio.io/istio Go module and caches the binary outside the repository.
//
//	judge xds < input.json   the Envoy configuration istiod would send each proxy (pilot/test/xds)
//	judge ambient < input.json   with Istio's ambient data plane on (PILOT_ENABLE_AMBIENT, set by
//	                         re-executing itself): what istiod tells ztunnel (workloads, services,
//	                         authorizations) and each waypoint's Envoy configuration
//	judge ambient-multicluster < input.json   one istiod of a multi-network ambient mesh, with
//	                         remote secrets for the other clusters (AMBIENT_ENABLE_MULTI_NETWORK
//	                         too): what it tells ztunnel of every cluster's services
//	judge ca  < input.json   load `cacerts` bundles as istiod does, sign workload certificates, and
//	                         verify every mesh's workload certificate against every trust bundle
//
// Input and output are JSON; see xds.go and ca.go for their shapes. A failure inside Istio's code is
// reported as {"error": "..."} with exit code 0, so callers can assert on it; bad input exits 2.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"istio.io/istio/pkg/log"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: judge xds|ambient|ambient-multicluster|ca < input.json")
		os.Exit(2)
	}
	// Istio logs to stdout, a great deal at info: stdout carries our JSON, and only errors help a
	// failing test, so errors go to stderr and the rest nowhere.
	opts := log.DefaultOptions()
	opts.OutputPaths = []string{"stderr"}
	opts.ErrorOutputPaths = []string{"stderr"}
	if err := log.Configure(opts); err != nil {
		fail(err)
	}
	for _, scope := range log.Scopes() {
		scope.SetOutputLevel(log.ErrorLevel)
	}
	if os.Args[1] == "ambient" {
		ensureAmbient()
	}
	if os.Args[1] == "ambient-multicluster" {
		ensureAmbientMultiNetwork()
	}
	input, err := io.ReadAll(os.Stdin)
	if err != nil {
		fail(err)
	}
	var out any
	switch os.Args[1] {
	case "xds":
		out, err = runXds(input)
	case "ca":
		out, err = runCa(input)
	case "ambient":
		out, err = runAmbient(input)
	case "ambient-multicluster":
		out, err = runAmbientMulticluster(input)
	default:
		fmt.Fprintf(os.Stderr, "unknown command %q\n", os.Args[1])
		os.Exit(2)
	}
	if err != nil {
		out = map[string]string{"error": err.Error()}
	}
	enc := json.NewEncoder(os.Stdout)
	if err := enc.Encode(out); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(2)
}

// decodeStrict reads JSON into v, refusing unknown fields so a typo in a test is an error.
func decodeStrict(input []byte, v any) error {
	dec := json.NewDecoder(bytesReader(input))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("input: %w", err)
	}
	return nil
}
