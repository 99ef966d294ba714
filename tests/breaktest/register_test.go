package breaktest

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/framework/host"
)

type badField struct {
	C chan int `json:"c"`
}

type badNested struct {
	Items []struct {
		F func() `json:"f"`
	} `json:"items"`
}

type badTag struct {
	N int `json:"n,string"`
}

type badEnum struct {
	N int `json:"n" enum:"a,b"`
}

type badDefault struct {
	N int `json:"n" default:"abc"`
}

type badRequired struct {
	N int `json:"n" required:"yes"`
}

type badMapKey struct {
	M map[int]string `json:"m"`
}

type badRegEnv struct{ framework.Base }

func (s *badRegEnv) Routes(r *framework.Router) {
	h := func(context.Context, framework.NoBody) (struct{}, error) { return struct{}{}, nil }
	framework.Post(r, "no_slash", h)
	framework.Post(r, "/", h)
	framework.Post(r, "/a/b", h)
	framework.Post(r, "/a b", h)
	framework.Post(r, "/verify", h)
	framework.Post(r, "/seed_session", h)
	framework.Post(r, "/aggregate_metrics", h)
	framework.Post(r, "/mcp", h)
	framework.Post(r, "/dup", h)
	framework.Post(r, "/dup", h)
	framework.Post(r, "/{tool}", h)
	framework.Post(r, "/é", h)
	framework.Post[framework.NoBody, struct{}](r, "/nilh", nil)
	framework.Post(r, "/chan", func(context.Context, badField) (struct{}, error) { return struct{}{}, nil })
	framework.Post(r, "/nested_func", func(context.Context, badNested) (struct{}, error) { return struct{}{}, nil })
	framework.Post(r, "/stringopt", func(context.Context, badTag) (struct{}, error) { return struct{}{}, nil })
	framework.Post(r, "/enum_int", func(context.Context, badEnum) (struct{}, error) { return struct{}{}, nil })
	framework.Post(r, "/bad_default", func(context.Context, badDefault) (struct{}, error) { return struct{}{}, nil })
	framework.Post(r, "/bad_required", func(context.Context, badRequired) (struct{}, error) { return struct{}{}, nil })
	framework.Post(r, "/int_map_key", func(context.Context, badMapKey) (struct{}, error) { return struct{}{}, nil })
	framework.Post(r, "/bytes", func(context.Context, []byte) (struct{}, error) { return struct{}{}, nil })
	framework.Post(r, "/ptr_req", func(context.Context, *Inner) (struct{}, error) { return struct{}{}, nil })
	framework.Post(r, "/slice_req", func(context.Context, []int) (struct{}, error) { return struct{}{}, nil })
	framework.Post(r, "/string_req", func(context.Context, string) (struct{}, error) { return struct{}{}, nil })
	framework.Post(r, "/iface_req", func(context.Context, error) (struct{}, error) { return struct{}{}, nil })
	framework.Dispatch(r, func(context.Context, string, json.RawMessage) (any, error) { return nil, nil })
	framework.Dispatch(r, func(context.Context, string, json.RawMessage) (any, error) { return nil, nil })
	framework.SeedSession(r, func(context.Context, badField) (struct{}, error) { return struct{}{}, nil })
	framework.SeedSession(r, func(context.Context, struct{}) (struct{}, error) { return struct{}{}, nil })
	// No Verify.
}

// TestRegistrationErrorsNamed: Build must refuse the server and name every
// problem in one error.
func TestRegistrationErrorsNamed(t *testing.T) {
	_, err := host.Build(context.Background(), &badRegEnv{}, host.Options{Name: "bad"})
	if err == nil {
		t.Fatal("Build accepted a server full of registration mistakes")
	}
	msg := err.Error()
	t.Logf("Build error:\n%s", msg)
	for _, want := range []string{
		`"no_slash"`, `route "/"`, `"/a/b"`, `"/a b"`, `"/verify"`, `"/seed_session"`, `"/aggregate_metrics"`, `"/mcp"`,
		`"/dup"`, `"/{tool}"`, `"/é"`, `"/nilh"`, `"/chan"`, `"/nested_func"`, `"/stringopt"`, `"/enum_int"`,
		`"/bad_default"`, `"/bad_required"`, `"/int_map_key"`, `"/bytes"`, `"/iface_req"`,
		"Dispatch", "SeedSession", "no /verify",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("Build error does not mention %s", want)
		}
	}
}

// TestRegistrationNonObjectRequest: a request type whose JSON is not an object
// ([]int, string, *Inner) gives a tool whose MCP inputSchema is not
// {"type":"object",...}; DESIGN says the schema root is always type object.
func TestRegistrationNonObjectRequest(t *testing.T) {
	type env struct{ framework.Base }
	app, err := host.Build(context.Background(), &nonObjEnv{}, host.Options{})
	if err != nil {
		t.Logf("Build refused: %v", err)
		return
	}
	for _, tool := range app.Tools() {
		var s map[string]any
		if err := json.Unmarshal(tool.InputSchema, &s); err != nil {
			t.Errorf("%s: schema %s: %v", tool.Name, tool.InputSchema, err)
			continue
		}
		if s["type"] != "object" {
			t.Errorf("tool %s: Build accepted a non-object request type; inputSchema %s (root type must be \"object\" for MCP)", tool.Name, tool.InputSchema)
		}
	}
}

type nonObjEnv struct{ framework.Base }

func (s *nonObjEnv) Routes(r *framework.Router) {
	framework.Post(r, "/slice_req", func(context.Context, []int) (struct{}, error) { return struct{}{}, nil })
	framework.Post(r, "/string_req", func(context.Context, string) (struct{}, error) { return struct{}{}, nil })
	framework.Post(r, "/int_req", func(context.Context, int) (struct{}, error) { return struct{}{}, nil })
	framework.Post(r, "/ptr_req", func(context.Context, *Inner) (struct{}, error) { return struct{}{}, nil })
	framework.Verify(r, func(context.Context, framework.VerifyRequest) (framework.VerifyResponse, error) {
		return framework.VerifyResponse{}, nil
	})
}

// registerOnce registers breaktest_once once per process.
var registerOnce sync.Once

// TestRegisterPanics: Register panics on "", nil and duplicates; Lookup lists
// the names.
func TestRegisterPanics(t *testing.T) {
	mustPanic := func(name string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s: no panic", name)
			}
		}()
		f()
	}
	factory := func() framework.Server { return &breakEnv{} }
	mustPanic("empty", func() { framework.Register("", factory) })
	mustPanic("nil", func() { framework.Register("breaktest_nil", nil) })
	// The registry is the process's: a second run of this test
	// (go test -count=2) finds breaktest_once registered already.
	registerOnce.Do(func() { framework.Register("breaktest_once", factory) })
	mustPanic("dup", func() { framework.Register("breaktest_once", factory) })
	if _, err := host.Lookup("breaktest_nope"); err == nil || !strings.Contains(err.Error(), "breaktest_once") {
		t.Errorf("Lookup error %v does not list registered names", err)
	}
}
