// Command kstatus prints what kstatus (sigs.k8s.io/cli-utils/pkg/kstatus/status), the library Flux
// and kpt read a resource's health with, computes for each object it is given.
//
// Input on stdin: Kubernetes objects as JSON, either one JSON array of them or a stream of objects
// (JSON lines). Output on stdout: one JSON line per object, in order —
// {"status":"Current","message":"Resource is current"} — or {"error":"..."} for an object kstatus
// cannot read. Exits 1 only when stdin is not JSON. Built by scripts/kstatus.sh.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
)

type verdict struct {
	Status  string `json:"status,omitempty"`
	Message string `json:"message,omitempty"`
	Error   string `json:"error,omitempty"`
}

func compute(raw json.RawMessage) verdict {
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(raw); err != nil {
		return verdict{Error: err.Error()}
	}
	result, err := status.Compute(u)
	if err != nil {
		return verdict{Error: err.Error()}
	}
	return verdict{Status: result.Status.String(), Message: result.Message}
}

// objects reads a JSON array of objects or a stream of objects.
func objects(in io.Reader) ([]json.RawMessage, error) {
	reader := bufio.NewReader(in)
	for {
		b, err := reader.Peek(1)
		if err == io.EOF {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		if b[0] != ' ' && b[0] != '\n' && b[0] != '\r' && b[0] != '\t' {
			break
		}
		_, _ = reader.ReadByte()
	}
	dec := json.NewDecoder(reader)
	if b, _ := reader.Peek(1); len(b) == 1 && b[0] == '[' {
		var all []json.RawMessage
		if err := dec.Decode(&all); err != nil {
			return nil, err
		}
		return all, nil
	}
	var all []json.RawMessage
	for {
		var one json.RawMessage
		if err := dec.Decode(&one); err == io.EOF {
			return all, nil
		} else if err != nil {
			return nil, err
		}
		all = append(all, one)
	}
}

func main() {
	all, err := objects(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "kstatus: stdin:", err)
		os.Exit(1)
	}
	out := json.NewEncoder(os.Stdout)
	for _, raw := range all {
		if err := out.Encode(compute(raw)); err != nil {
			fmt.Fprintln(os.Stderr, "kstatus:", err)
			os.Exit(1)
		}
	}
}
