package config

import (
	"os"
	"path/filepath"
	"testing"
)

type pathEnv struct {
	DataFile Path            `koanf:"data_file"`
	Plain    string          `koanf:"plain"`
	More     []Path          `koanf:"more"`
	ByName   map[string]Path `koanf:"by_name"`
	Nested   struct {
		Dir Path `koanf:"dir"`
	} `koanf:"nested"`
	EnvFile Path `koanf:"env_file"`
	FromVar Path `koanf:"from_var"`
}

// One rule for relative Path values: the server folder of the file that set the key when it
// is <folder>/configs/<name>, else the working directory (another file, env.yaml, the dict, an
// override), whatever the working directory and whichever way the config is loaded.
func TestPathResolvesAgainstTheServerFolder(t *testing.T) {
	t.Parallel()
	block := server("w", "data_file: data/tasks.jsonl", "plain: data/x", "more: [a.txt, /abs/b.txt, '']",
		"by_name: {k: sub/k.txt}", "nested:", "  dir: .", "env_file: ${oc.env:DATA}", "from_var: ${data_dir}/v.txt")
	dir := writeDir(t, map[string]string{
		"servers/w/configs/w.yaml": "data_dir: shared\n" + block,
		"other.yaml":               "w:\n  resources_servers:\n    w:\n      nested:\n        dir: here\n",
		"configs/launch.yaml":      "data_dir: data/shared\n" + server("w", "from_var: ${data_dir}/v.txt"),
	})
	if err := os.MkdirAll(filepath.Join(dir, "elsewhere"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "elsewhere", "env.yaml"), []byte("w:\n  resources_servers:\n    w:\n      by_name: {e: e.txt}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dictBytes, err := os.ReadFile(filepath.Join(dir, "servers/w/configs/w.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// want: key -> path relative to dir ("/..." absolute)
	whole := map[string]string{
		"data_file": "servers/w/data/tasks.jsonl", "plain": "data/x", "more[0]": "servers/w/a.txt", "more[1]": "/abs/b.txt", "more[2]": "",
		"by_name.k": "servers/w/sub/k.txt", "nested.dir": "servers/w", "env_file": "servers/w/from-env.txt", "from_var": "servers/w/shared/v.txt",
	}
	tests := []struct {
		name  string
		wd    string // LoadOptions.WorkDir, relative to dir
		files []string
		over  []string
		dict  bool // the server file's text as LoadOptions.Dict
		want  map[string]string
	}{
		{"from the repository root", ".", []string{"servers/w/configs/w.yaml"}, nil, false, whole},
		{"from another folder", "elsewhere", []string{"../servers/w/configs/w.yaml"}, nil, false,
			map[string]string{"data_file": "servers/w/data/tasks.jsonl", "by_name.k": "servers/w/sub/k.txt", "by_name.e": "elsewhere/e.txt", "nested.dir": "servers/w"}},
		{"from the server folder (go test, NeMo's launcher)", "servers/w", []string{"configs/w.yaml"}, nil, false, whole},
		{"a file outside configs/: the working directory", "servers", []string{"w/configs/w.yaml", "../other.yaml"}, nil, false,
			map[string]string{"nested.dir": "servers/here", "data_file": "servers/w/data/tasks.jsonl"}},
		{"an override: the working directory", "servers", []string{"w/configs/w.yaml"}, []string{"w.resources_servers.w.data_file=mine.jsonl", "w.resources_servers.w.by_name={k: k2.txt}"}, false,
			map[string]string{"data_file": "servers/mine.jsonl", "by_name.k": "servers/k2.txt", "more[0]": "servers/w/a.txt"}},
		{"the file that sets the key decides, not the one defining the variable", ".", []string{"servers/w/configs/w.yaml"}, []string{"data_dir=up"}, false,
			map[string]string{"from_var": "servers/w/up/v.txt"}},
		{"a launcher config in <root>/configs/: the root", ".", []string{"configs/launch.yaml"}, nil, false,
			map[string]string{"from_var": "data/shared/v.txt"}},
		{"the dict, in the server folder", "servers/w", nil, nil, true, whole},
		{"the dict, elsewhere: the working directory", "elsewhere", nil, nil, true,
			map[string]string{"data_file": "elsewhere/data/tasks.jsonl", "nested.dir": "elsewhere", "by_name.k": "elsewhere/sub/k.txt"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := opts(filepath.Join(dir, tt.wd), tt.files, tt.over...)
			o.LookupEnv = envMap(map[string]string{"DATA": "from-env.txt"})
			if tt.dict {
				o.Dict = dictBytes
			}
			c := mustLoad(t, o)
			inst, _ := c.Instance("w")
			var e pathEnv
			if err := inst.Decode(&e); err != nil {
				t.Fatal(err)
			}
			got := map[string]string{
				"data_file": string(e.DataFile), "plain": e.Plain, "nested.dir": string(e.Nested.Dir), "env_file": string(e.EnvFile), "from_var": string(e.FromVar),
				"by_name.k": string(e.ByName["k"]), "by_name.e": string(e.ByName["e"]),
			}
			for i, p := range e.More {
				got["more["+string(rune('0'+i))+"]"] = string(p)
			}
			for key, rel := range tt.want {
				w := rel
				if rel != "" && !filepath.IsAbs(rel) && key != "plain" {
					w = filepath.Join(dir, rel)
				}
				want(t, key, got[key], w)
			}
		})
	}
}
