package config_test

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/config"
)

type pathKeysServer struct {
	DataDir config.Path `koanf:"data_dir"`
	Notes   string      `koanf:"notes"` // a plain string: not a path key
	Unset   config.Path `koanf:"unset"`
	Nested  struct {
		File config.Path `koanf:"file"`
	} `koanf:"nested"`
	List  []config.Path          `koanf:"list"`
	Files map[string]config.Path `koanf:"files"`
}

// PathKeys lists every configured Path key of the server's struct with its
// value before resolution (interpolated), and Decodes as Decode does; a
// decode problem returns no key.
func TestPathKeys(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	yaml := `data_dir: data/shared
inst:
  resources_servers:
    t:
      domain: other
      data_dir: ${data_dir}/t
      notes: notes.txt
      nested: {file: /abs/file}
      list: [a.txt, ../b.txt]
      files: {one: x/1.txt}
`
	file := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(config.LoadOptions{Files: []string{file}, WorkDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	inst, _ := cfg.Instance("inst")
	var s pathKeysServer
	keys, err := inst.PathKeys(&s)
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].Key < keys[j].Key })
	p := "inst.resources_servers.t."
	want := []config.PathKey{
		{Key: p + "data_dir", Value: "data/shared/t"},
		{Key: p + "files.one", Value: "x/1.txt"},
		{Key: p + "list[0]", Value: "a.txt"},
		{Key: p + "list[1]", Value: "../b.txt"},
		{Key: p + "nested.file", Value: "/abs/file"},
	}
	if !reflect.DeepEqual(keys, want) {
		t.Errorf("PathKeys:\n got %v\nwant %v", keys, want)
	}
	if !filepath.IsAbs(string(s.DataDir)) || s.Notes != "notes.txt" {
		t.Errorf("decoded %+v: want the struct decoded as by Decode (paths resolved, strings as written)", s)
	}

	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte(strings.Replace(yaml, "notes: notes.txt", "notes: [1]", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err = config.Load(config.LoadOptions{Files: []string{bad}, WorkDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	inst, _ = cfg.Instance("inst")
	if keys, err := inst.PathKeys(new(pathKeysServer)); err == nil || keys != nil || !strings.Contains(err.Error(), "inst.resources_servers.t.notes") {
		t.Errorf("a decode problem: keys %v, error %v; want none and the problem", keys, err)
	}
}
