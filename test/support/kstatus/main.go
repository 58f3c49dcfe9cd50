// Command kstatus prints what kstatus (sigs.k8s.io/cli-utils/pkg/kstatus/status), the library Flux
// and kpt read a resource's health with, computes for each object it is given. With the arguments
// `argocd SCRIPT` it prints instead what an Argo CD resource health check SCRIPT (a Lua file) returns
// for each object, run as Argo CD runs one: in gopher-lua (github.com/yuin/gopher-lua, Argo CD's Lua
// VM) with only the package, base and table libraries, the object as the global `obj`, and a time
// limit of one second (docs/gitops.md#argo-cd).
//
// Input on stdin: Kubernetes objects as JSON, either one JSON array of them or a stream of objects
// (JSON lines). Output on stdout: one JSON line per object, in order —
// {"status":"Current","message":"Resource is current"} — or {"error":"..."} for an object it
// cannot read (or a script that fails on it). Exits 1 only when stdin is not JSON or SCRIPT cannot be
// read. Built by scripts/kstatus.sh.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	lua "github.com/yuin/gopher-lua"
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

// toLua gives a JSON value as Argo CD hands a resource to Lua: objects and arrays as tables, numbers,
// strings and booleans as themselves, null as nil.
func toLua(l *lua.LState, value interface{}) lua.LValue {
	switch v := value.(type) {
	case map[string]interface{}:
		t := l.NewTable()
		for k, e := range v {
			t.RawSetString(k, toLua(l, e))
		}
		return t
	case []interface{}:
		t := l.NewTable()
		for _, e := range v {
			t.Append(toLua(l, e))
		}
		return t
	case string:
		return lua.LString(v)
	case float64:
		return lua.LNumber(v)
	case bool:
		return lua.LBool(v)
	}
	return lua.LNil
}

// argocd runs the health check script on one object as Argo CD does and returns its `hs`.
func argocd(script string, raw json.RawMessage) verdict {
	var object map[string]interface{}
	if err := json.Unmarshal(raw, &object); err != nil {
		return verdict{Error: err.Error()}
	}
	l := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer l.Close()
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{{lua.LoadLibName, lua.OpenPackage}, {lua.BaseLibName, lua.OpenBase}, {lua.TabLibName, lua.OpenTable}} {
		if err := l.CallByParam(lua.P{Fn: l.NewFunction(lib.open), NRet: 0, Protect: true}, lua.LString(lib.name)); err != nil {
			return verdict{Error: err.Error()}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	l.SetContext(ctx)
	l.SetGlobal("obj", toLua(l, object))
	if err := l.DoString(script); err != nil {
		return verdict{Error: err.Error()}
	}
	hs, ok := l.Get(-1).(*lua.LTable)
	if !ok {
		return verdict{Error: "the script returned no table"}
	}
	return verdict{Status: lua.LVAsString(hs.RawGetString("status")), Message: lua.LVAsString(hs.RawGetString("message"))}
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
	read := compute
	if len(os.Args) == 3 && os.Args[1] == "argocd" {
		script, err := os.ReadFile(os.Args[2])
		if err != nil {
			fmt.Fprintln(os.Stderr, "kstatus argocd:", err)
			os.Exit(1)
		}
		read = func(raw json.RawMessage) verdict { return argocd(string(script), raw) }
	}
	out := json.NewEncoder(os.Stdout)
	for _, raw := range all {
		if err := out.Encode(read(raw)); err != nil {
			fmt.Fprintln(os.Stderr, "kstatus:", err)
			os.Exit(1)
		}
	}
}
