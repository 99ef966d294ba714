package cli

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/framework"
)

// pathsServerType is a test-only gymkit server type with path keys
// (config.Path fields), for gymkit check --nemo's path findings.
const pathsServerType = "gymkit_test_paths"

func init() { framework.Register(pathsServerType, func() framework.Server { return new(pathsServer) }) }

type pathsServer struct {
	framework.Base
	DataDir   config.Path `koanf:"data_dir"`
	ToolsFile config.Path `koanf:"tools_file"`
	Label     string      `koanf:"label"` // a plain string: never a path
}

func (s *pathsServer) Routes(r *framework.Router) {
	framework.Verify(r, func(context.Context, framework.VerifyRequest) (framework.VerifyResponse, error) {
		return framework.VerifyResponse{}, nil
	})
}

// nemoTree is a launcher's world on disk: root, the folder gym env start
// runs in (it holds configs/ and resources_servers/ links to servers/, as
// gymkit's checkout); nemo, a fake NeMo install (an editable checkout: a
// nemo_gym package that must not be imported, pyproject.toml, NeMo's own
// Python servers of the same names).
type nemoTree struct {
	root, nemo, bin string
	headPort        int // head_server.port: a port nothing listens on
}

// nemoBase is the launcher config of every test: a gymkit server, a
// gymkit server with path keys, a Python resources server, NeMo's
// simple_agent and a model server; %d is the head server's port.
const nemoBase = `skip_venv_if_present: true
head_server: {host: 127.0.0.1, port: %d}
policy_base_url: http://127.0.0.1:1/v1
example_mcp_weather:
  resources_servers:
    example_mcp_weather: {entrypoint: app.py, domain: agent}
paths:
  resources_servers:
    gymkit_test_paths: {entrypoint: app.py, domain: other, data_dir: data, label: not/a/path}
math_with_judge:
  resources_servers:
    math_with_judge: {entrypoint: app.py, domain: math}
weather_agent:
  responses_api_agents:
    simple_agent:
      entrypoint: app.py
      resources_server: {type: resources_servers, name: example_mcp_weather}
      model_server: {type: responses_api_models, name: policy_model}
policy_model:
  responses_api_models:
    openai_model: {entrypoint: app.py, openai_base_url: "${policy_base_url}"}
`

// newNemoTree lays out the tree, makes root the working directory, and
// gives the process a PATH of python3 (and uv, when withUV) only and a
// PYTHONPATH that finds the fake nemo_gym.
func newNemoTree(t *testing.T, withUV bool) nemoTree {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tr := nemoTree{root: root, nemo: fakeNemo(t), headPort: closedPort(t)}
	for _, name := range []string{"example_mcp_weather", pathsServerType} {
		gymkitFolder(t, tr.root, name)
	}
	if err := os.MkdirAll(filepath.Join(tr.root, "servers", pathsServerType, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	mkfile(t, filepath.Join(tr.root, "configs", "nemo.yaml"), strings.Replace(nemoBase, "%d", strconv.Itoa(tr.headPort), 1))
	tr.bin = launcherEnv(t, tr.root, tr.nemo, withUV)
	return tr
}

// fakeNemo writes a fake NeMo install, as an editable checkout: a nemo_gym
// package that must not be imported, pyproject.toml, and NeMo's own Python
// servers of the names the tests use (gymkit's among them).
func fakeNemo(t *testing.T) string {
	t.Helper()
	nemo, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mkfile(t, filepath.Join(nemo, "nemo_gym", "__init__.py"), "raise SystemExit('gymkit check --nemo must not import nemo_gym')\n")
	mkfile(t, filepath.Join(nemo, "pyproject.toml"), "[project]\nname = \"nemo-gym\"\n")
	for _, s := range []string{"resources_servers/example_mcp_weather", "resources_servers/example_session_state_mgmt", "resources_servers/math_advanced_calculations",
		"resources_servers/workplace_assistant", "resources_servers/gymkit_test_paths", "resources_servers/math_with_judge",
		"responses_api_agents/simple_agent", "responses_api_models/openai_model"} {
		mkfile(t, filepath.Join(nemo, s, "app.py"), "# NeMo's Python server\n")
		mkfile(t, filepath.Join(nemo, s, "requirements.txt"), "-e nemo-gym[dev] @ ../../\n")
	}
	return nemo
}

// launcherEnv makes cwd the working directory and gives the process a PATH
// of python3 (and a stand-in uv, when withUV) only, a PYTHONPATH that finds
// nemo's nemo_gym, and no NEMO_GYM_EXTRA_ROOTS or GYMKIT_BIN; it returns the
// PATH folder.
func launcherEnv(t *testing.T, cwd, nemo string, withUV bool) string {
	t.Helper()
	bin := t.TempDir()
	if err := os.Symlink(pythonExe(t), filepath.Join(bin, "python3")); err != nil {
		t.Fatal(err)
	}
	if withUV {
		mkfile(t, filepath.Join(bin, "uv"), "#!/bin/sh\nexit 0\n")
		if err := os.Chmod(filepath.Join(bin, "uv"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin)
	t.Setenv("PYTHONPATH", nemo)
	t.Setenv("NEMO_GYM_EXTRA_ROOTS", "")
	t.Setenv("GYMKIT_BIN", "")
	t.Chdir(cwd)
	return bin
}

// gymkitFolder writes servers/NAME with app.py and requirements.txt as
// gymkit new renders them, and the link resources_servers/NAME.
func gymkitFolder(t *testing.T, root, name string) {
	t.Helper()
	d := checkoutData(baseData(name))
	for file, tmpl := range map[string]string{"app.py": "app.py.tmpl", "requirements.txt": "requirements.txt.tmpl"} {
		b, err := render(tmpl, d)
		if err != nil {
			t.Fatal(err)
		}
		mkfile(t, filepath.Join(root, "servers", name, file), string(b))
	}
	if err := os.MkdirAll(filepath.Join(root, "resources_servers"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("..", "servers", name), filepath.Join(root, "resources_servers", name)); err != nil {
		t.Fatal(err)
	}
}

func mkfile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// appendConfig adds YAML to the launcher config.
func (tr nemoTree) appendConfig(t *testing.T, yaml string) {
	t.Helper()
	p := filepath.Join(tr.root, "configs", "nemo.yaml")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	mkfile(t, p, string(b)+yaml)
}

// nemoFindings runs gymkit check --nemo and returns its exit status, stdout,
// and the findings of kind it lists ("<subject>: <message>" each).
func nemoFindings(t *testing.T, kind string, args ...string) (int, string, string, []string) {
	t.Helper()
	code, stdout, stderr := gymkitRun(t, append([]string{"check", "--nemo"}, args...)...)
	var found []string
	for line := range strings.SplitSeq(stderr, "\n") {
		if rest, ok := strings.CutPrefix(line, "\t"+kind+": "); ok {
			found = append(found, rest)
		}
	}
	return code, stdout, stderr, found
}

type nemoCase struct {
	name  string
	setup func(t *testing.T, tr nemoTree) []string  // returns extra arguments
	want  func(tr nemoTree, args []string) []string // the findings of the test's kind, in order
	// otherKinds: findings of other kinds are expected too (exit 1 even
	// when want is empty).
	otherKinds bool
}

// runNemoCases runs each case on a fresh tree (uv on PATH unless the kind
// is setup): exit 1 with exactly the wanted findings of kind, or exit 0 and
// "no findings" when none is wanted (and no other kind is expected).
func runNemoCases(t *testing.T, kind string, cases []nemoCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr := newNemoTree(t, kind != findSetup)
			extra := tc.setup(t, tr)
			code, stdout, stderr, got := nemoFindings(t, kind, append([]string{"configs/nemo.yaml"}, extra...)...)
			want := tc.want(tr, extra)
			wantCode := 1
			if len(want) == 0 && !tc.otherKinds {
				wantCode = 0
			}
			if code != wantCode || strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("exit %d, %s findings:\n%s\nwant exit %d and:\n%s\nstdout:\n%s\nstderr:\n%s", code, kind,
					strings.Join(got, "\n"), wantCode, strings.Join(want, "\n"), stdout, stderr)
			}
			if wantCode == 0 && !strings.HasSuffix(stdout, "\ngymkit check --nemo: no findings\n") {
				t.Errorf("stdout does not end with no findings:\n%s", stdout)
			}
		})
	}
}

func none(nemoTree, []string) []string { return nil }

func noArgs(*testing.T, nemoTree) []string { return nil }

// The clean tree: every root listed in the launcher's order, every server
// with its folder, exit 0; --search-dir and NEMO_GYM_EXTRA_ROOTS come first
// (a relative one as given, beside its absolute form), a root that
// resolves to one already listed is dropped, and the config is looked up
// under the roots as gym env start looks up --config.
func TestCheckNemoClean(t *testing.T) {
	tr := newNemoTree(t, true)
	extra := t.TempDir()
	mkfile(t, filepath.Join(extra, "configs", "extra.yaml"), "example_mcp_weather:\n  resources_servers:\n    example_mcp_weather: {description: from the extra root}\n")
	t.Setenv("NEMO_GYM_EXTRA_ROOTS", extra+":"+tr.root+"::")
	rel, err := filepath.Rel(tr.root, tr.nemo)
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := gymkitRun(t, "check", "--nemo", "--search-dir", rel, "configs/nemo.yaml", "--config", "configs/extra.yaml", "++example_mcp_weather.resources_servers.example_mcp_weather.verified=false")
	want := "gym env start in " + tr.root + ", as gymkit check --nemo sees it\n" +
		"roots (the launcher takes <type>/<name> from the first that holds it with requirements.txt or pyproject.toml):\n" +
		"  1. " + tr.nemo + " (" + rel + "): --search-dir (NEMO_GYM_EXTRA_ROOTS)\n" +
		"  2. " + extra + ": NEMO_GYM_EXTRA_ROOTS\n" +
		"  3. " + tr.root + ": NEMO_GYM_EXTRA_ROOTS\n" +
		"config configs/nemo.yaml: " + filepath.Join(tr.root, "configs", "nemo.yaml") + "\n" +
		"config configs/extra.yaml: " + filepath.Join(extra, "configs", "extra.yaml") + "\n" +
		"servers:\n" +
		"  example_mcp_weather: resources_servers/example_mcp_weather, gymkit: " + tr.nemo + "/resources_servers/example_mcp_weather (root 1)\n"
	if code != 1 || !strings.HasPrefix(stdout, want) {
		t.Errorf("exit %d, stdout:\n%s\nwant it to start with:\n%s\nstderr:\n%s", code, stdout, want, stderr)
	}

	// Without the search dir that puts NeMo's tree first: clean.
	t.Setenv("NEMO_GYM_EXTRA_ROOTS", "")
	code, stdout, stderr = gymkitRun(t, "check", "--nemo", "--config", "configs/nemo.yaml")
	want = "gym env start in " + tr.root + ", as gymkit check --nemo sees it\n" +
		"roots (the launcher takes <type>/<name> from the first that holds it with requirements.txt or pyproject.toml):\n" +
		"  1. " + tr.root + ": the working directory\n" +
		"  2. " + tr.nemo + ": NeMo's install root (python3's nemo_gym)\n" +
		"config configs/nemo.yaml: " + filepath.Join(tr.root, "configs", "nemo.yaml") + "\n" +
		"servers:\n" +
		"  example_mcp_weather: resources_servers/example_mcp_weather, gymkit: " + tr.root + "/resources_servers/example_mcp_weather (root 1)\n" +
		"  math_with_judge: resources_servers/math_with_judge, Python: " + tr.nemo + "/resources_servers/math_with_judge (root 2)\n" +
		"  paths: resources_servers/gymkit_test_paths, gymkit: " + tr.root + "/resources_servers/gymkit_test_paths (root 1)\n" +
		"  policy_model: responses_api_models/openai_model, Python: " + tr.nemo + "/responses_api_models/openai_model (root 2)\n" +
		"  weather_agent: responses_api_agents/simple_agent, Python: " + tr.nemo + "/responses_api_agents/simple_agent (root 2)\n" +
		"gymkit check --nemo: no findings\n"
	if code != 0 || stdout != want || stderr != "" {
		t.Errorf("exit %d, stdout:\n%s\nwant:\n%s\nstderr:\n%s", code, stdout, want, stderr)
	}
}

// Usage errors exit 2 with one message: no config, a config no root holds,
// an unknown flag.
func TestCheckNemoUsage(t *testing.T) {
	tr := newNemoTree(t, true)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"check", "--nemo"}, "gymkit check: a launcher config is required: CONFIG or --config CONFIG, as for gym env start\n"},
		{[]string{"check", "--nemo", "configs/missing.yaml"}, "gymkit check --nemo: config configs/missing.yaml is not found; the launcher looks in:\n\t" +
			filepath.Join(tr.root, "configs", "missing.yaml") + "\n\t" + filepath.Join(tr.nemo, "configs", "missing.yaml") + "\n"},
		{[]string{"check", "--nemo", "configs/nemo.yaml", "--port", "1"}, "gymkit check: unknown flag --port\n"},
		{[]string{"check", "--nemo", "configs/nemo.yaml", "example_mcp_weather.resources_servers.example_mcp_weather=[1"}, "gymkit check --nemo: config: command line: override \"example_mcp_weather.resources_servers.example_mcp_weather=[1\""},
	} {
		code, stdout, stderr := gymkitRun(t, tc.args...)
		if code != 2 || stdout != "" || !strings.HasPrefix(stderr, tc.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
	if code, stdout, _ := gymkitRun(t, "check", "--nemo", "--help"); code != 0 || !strings.Contains(stdout, "gymkit check --nemo [--search-dir DIR ...] CONFIG") {
		t.Errorf("--help: exit %d, %q", code, stdout)
	}
}

// shadowed: a gymkit server the launcher would take from elsewhere (NeMo's
// own Python server of that name, or any folder whose app.py is not
// gymkit's) because no earlier root holds it with a marker file.
func TestCheckNemoShadowed(t *testing.T) {
	nemoWeather := func(tr nemoTree) string {
		return "example_mcp_weather: gym env start would run NeMo's own Python server " + tr.nemo + "/resources_servers/example_mcp_weather, not gymkit's example_mcp_weather: "
	}
	runNemoCases(t, findShadowed, []nemoCase{
		{name: "the layout gymkit new writes", setup: noArgs, want: none},
		{
			name: "no requirements.txt: NeMo's own server runs (the recording's setup1)",
			setup: func(t *testing.T, tr nemoTree) []string {
				if err := os.Remove(filepath.Join(tr.root, "servers", "example_mcp_weather", "requirements.txt")); err != nil {
					t.Fatal(err)
				}
				return nil
			},
			want: func(tr nemoTree, _ []string) []string {
				return []string{nemoWeather(tr) + tr.root + "/resources_servers/example_mcp_weather is gymkit's but holds neither requirements.txt nor pyproject.toml, so the launcher passes it by; add requirements.txt to it (gymkit new writes one, a comment only)"}
			},
		},
		{
			name: "no resources_servers link",
			setup: func(t *testing.T, tr nemoTree) []string {
				if err := os.Remove(filepath.Join(tr.root, "resources_servers", "example_mcp_weather")); err != nil {
					t.Fatal(err)
				}
				return nil
			},
			want: func(tr nemoTree, _ []string) []string {
				return []string{nemoWeather(tr) + tr.root + "/servers/example_mcp_weather is gymkit's, but no resources_servers/example_mcp_weather leads to it; make " +
					tr.root + "/resources_servers/example_mcp_weather a link to ../servers/example_mcp_weather holding requirements.txt, as gymkit new writes it"}
			},
		},
		{
			name: "an extra root with a Python server of the name",
			setup: func(t *testing.T, tr nemoTree) []string {
				extra := t.TempDir()
				mkfile(t, filepath.Join(extra, "resources_servers", "example_mcp_weather", "app.py"), "# someone's Python server\n")
				mkfile(t, filepath.Join(extra, "resources_servers", "example_mcp_weather", "pyproject.toml"), "")
				return []string{"--search-dir", extra}
			},
			want: func(tr nemoTree, args []string) []string {
				return []string{"example_mcp_weather: gym env start would run a server that is not gymkit's (its entrypoint is not gymkit's app.py) " +
					args[1] + "/resources_servers/example_mcp_weather, not gymkit's example_mcp_weather: " + tr.root + "/resources_servers/example_mcp_weather is gymkit's, but its root (2. " +
					tr.root + ") comes after 1. " + args[1] + "; name it first: gym env start --search-dir " + tr.root + " (or NEMO_GYM_EXTRA_ROOTS=" + tr.root + ")"}
			},
		},
		{
			name: "run in another folder than the one holding resources_servers/ (no root holds gymkit's folder)",
			setup: func(t *testing.T, tr nemoTree) []string {
				elsewhere, err := filepath.EvalSymlinks(t.TempDir())
				if err != nil {
					t.Fatal(err)
				}
				b, err := os.ReadFile(filepath.Join(tr.root, "configs", "nemo.yaml"))
				if err != nil {
					t.Fatal(err)
				}
				mkfile(t, filepath.Join(elsewhere, "configs", "nemo.yaml"), string(b))
				t.Chdir(elsewhere)
				return nil
			},
			want: func(tr nemoTree, _ []string) []string {
				cwd, _ := os.Getwd()
				looked := cwd + ", " + tr.nemo
				var want []string
				for _, name := range []string{"example_mcp_weather", "paths"} {
					impl := map[string]string{"example_mcp_weather": "example_mcp_weather", "paths": pathsServerType}[name]
					want = append(want, name+": gym env start would run NeMo's own Python server "+tr.nemo+"/resources_servers/"+impl+", not gymkit's "+impl+
						": no root holds gymkit's resources_servers/"+impl+" (looked in "+looked+"); run gym env start in the folder that holds your resources_servers/"+impl+
						" (the root of the module gymkit new wrote it in, or gymkit's checkout for its shipped environments), or name that folder first with --search-dir DIR or NEMO_GYM_EXTRA_ROOTS=DIR"+
						", or give your environment a name NeMo's servers do not use")
				}
				return want
			},
			otherKinds: true,
		},
	})
}

// not-found: no root holds the folder; for a Python server only when
// NeMo's install root is known (else a note says it is not looked up).
func TestCheckNemoNotFound(t *testing.T) {
	notAnywhere := func(t *testing.T, tr nemoTree) []string {
		tr.appendConfig(t, "my_python:\n  resources_servers:\n    not_anywhere: {entrypoint: app.py, domain: other}\n")
		return nil
	}
	runNemoCases(t, findNotFound, []nemoCase{
		{name: "every folder found", setup: noArgs, want: none},
		{
			name:  "a Python server no root holds",
			setup: notAnywhere,
			want: func(tr nemoTree, _ []string) []string {
				return []string{"my_python: no root holds resources_servers/not_anywhere with requirements.txt or pyproject.toml (looked in " + tr.root + ", " + tr.nemo +
					"); gym env start would fall back to " + tr.root + "/resources_servers/not_anywhere, which does not exist: the launch fails"}
			},
		},
		{
			name: "a gymkit server no root holds",
			setup: func(t *testing.T, tr nemoTree) []string {
				tr.appendConfig(t, "slow:\n  resources_servers:\n    "+slowServerType+": {entrypoint: app.py, domain: other, started_file: a, release_file: b}\n")
				return nil
			},
			want: func(tr nemoTree, _ []string) []string {
				return []string{"slow: no root holds resources_servers/" + slowServerType + " with requirements.txt or pyproject.toml (looked in " + tr.root + ", " + tr.nemo +
					"); gym env start would fall back to " + tr.root + "/resources_servers/" + slowServerType + ", which does not exist: the launch fails"}
			},
		},
		{
			name: "a gymkit server with no NeMo namesake and no requirements.txt (the recording's my_go_env)",
			setup: func(t *testing.T, tr nemoTree) []string {
				gymkitFolder(t, tr.root, slowServerType)
				if err := os.Remove(filepath.Join(tr.root, "servers", slowServerType, "requirements.txt")); err != nil {
					t.Fatal(err)
				}
				tr.appendConfig(t, "slow:\n  resources_servers:\n    "+slowServerType+": {entrypoint: app.py, domain: other, started_file: a, release_file: b}\n")
				return nil
			},
			want: func(tr nemoTree, _ []string) []string {
				return []string{"slow: no root holds resources_servers/" + slowServerType + " with requirements.txt or pyproject.toml (looked in " + tr.root + ", " + tr.nemo +
					"); gym env start would fall back to " + tr.root + "/resources_servers/" + slowServerType + ", whose setup step refuses a folder without requirements.txt or pyproject.toml, unless skip_venv_if_present: true finds its .venv; add a requirements.txt"}
			},
		},
		{
			name: "NeMo's install root unknown: Python servers are not looked up",
			setup: func(t *testing.T, tr nemoTree) []string {
				t.Setenv("PYTHONPATH", "")
				return notAnywhere(t, tr)
			},
			want: none,
		},
	})
}

// layout: the found folder lacks its entrypoint or holds both marker files;
// a gymkit server has no (or an absolute) entrypoint.
func TestCheckNemoLayout(t *testing.T) {
	weather := "example_mcp_weather.resources_servers.example_mcp_weather"
	runNemoCases(t, findLayout, []nemoCase{
		{name: "app.py and requirements.txt", setup: noArgs, want: none},
		{
			name: "no app.py",
			setup: func(t *testing.T, tr nemoTree) []string {
				if err := os.Remove(filepath.Join(tr.root, "servers", "example_mcp_weather", "app.py")); err != nil {
					t.Fatal(err)
				}
				return nil
			},
			want: func(tr nemoTree, _ []string) []string {
				dir := tr.root + "/resources_servers/example_mcp_weather"
				return []string{weather + ".entrypoint: " + dir + "/app.py does not exist: `python app.py` in " + dir + " would fail"}
			},
		},
		{
			name: "requirements.txt and pyproject.toml",
			setup: func(t *testing.T, tr nemoTree) []string {
				mkfile(t, filepath.Join(tr.root, "servers", "example_mcp_weather", "pyproject.toml"), "")
				return nil
			},
			want: func(tr nemoTree, _ []string) []string {
				return []string{"example_mcp_weather: " + tr.root + "/resources_servers/example_mcp_weather holds both requirements.txt and pyproject.toml: the launcher refuses such a folder when it sets up its .venv; keep one (a gymkit server: requirements.txt)"}
			},
		},
		{
			name: "a gymkit server without an entrypoint",
			setup: func(t *testing.T, tr nemoTree) []string {
				tr.appendConfig(t, "paths_too:\n  resources_servers:\n    gymkit_test_paths: {domain: other}\n")
				return nil
			},
			want: func(tr nemoTree, _ []string) []string {
				return []string{"paths_too.resources_servers.gymkit_test_paths: has no entrypoint: gym env start does not start it (entrypoint: app.py)"}
			},
		},
		{
			name:  "an absolute entrypoint",
			setup: func(*testing.T, nemoTree) []string { return []string{"++" + weather + ".entrypoint=/srv/app.py"} },
			want: func(nemoTree, []string) []string {
				return []string{weather + ".entrypoint: /srv/app.py is absolute: the launcher refuses it (entrypoint: app.py, relative to the server folder)"}
			},
		},
	})
}

// setup: a server whose setup step would run uv while uv is not on PATH
// (uv is never on PATH in these cases).
func TestCheckNemoSetup(t *testing.T) {
	folders := func(tr nemoTree) map[string]string {
		return map[string]string{
			"example_mcp_weather": tr.root + "/resources_servers/example_mcp_weather",
			"math_with_judge":     tr.nemo + "/resources_servers/math_with_judge",
			"paths":               tr.root + "/resources_servers/gymkit_test_paths",
			"policy_model":        tr.nemo + "/responses_api_models/openai_model",
			"weather_agent":       tr.nemo + "/responses_api_agents/simple_agent",
		}
	}
	venvs := func(t *testing.T, dirs ...string) {
		for _, d := range dirs {
			mkfile(t, filepath.Join(d, ".venv", "bin", "python"), "")
			mkfile(t, filepath.Join(d, ".venv", "bin", "activate"), "")
		}
	}
	every := func(t *testing.T, tr nemoTree) []string {
		for _, d := range folders(tr) {
			venvs(t, d)
		}
		return nil
	}
	runNemoCases(t, findSetup, []nemoCase{
		{name: "skip_venv_if_present: true and every folder has a .venv", setup: every, want: none},
		{
			name: "the Python servers have no .venv",
			setup: func(t *testing.T, tr nemoTree) []string {
				venvs(t, folders(tr)["example_mcp_weather"], folders(tr)["paths"])
				return nil
			},
			want: func(tr nemoTree, _ []string) []string {
				var want []string
				for _, name := range []string{"math_with_judge", "policy_model", "weather_agent"} {
					v := folders(tr)[name] + "/.venv"
					want = append(want, name+": "+v+" has no bin/python and bin/activate, so the setup step would run uv, which is not on PATH: install uv (the setup step installs the server's requirements with it), "+
						"or create that .venv with them installed (a NeMo Python server needs nemo-gym and what "+folders(tr)[name]+"/requirements.txt lists)")
				}
				return want
			},
		},
		{
			name: "gymkit's servers have no .venv: a bare venv is enough for them",
			setup: func(t *testing.T, tr nemoTree) []string {
				venvs(t, folders(tr)["math_with_judge"], folders(tr)["policy_model"], folders(tr)["weather_agent"])
				return nil
			},
			want: func(tr nemoTree, _ []string) []string {
				var want []string
				for _, name := range []string{"example_mcp_weather", "paths"} {
					v := folders(tr)[name] + "/.venv"
					want = append(want, name+": "+v+" has no bin/python and bin/activate, so the setup step would run uv, which is not on PATH: create it (python3 -m venv --without-pip "+v+": gymkit's app.py needs Python's standard library only) or install uv")
				}
				return want
			},
		},
		{
			name: "skip_venv_if_present: false",
			setup: func(t *testing.T, tr nemoTree) []string {
				every(t, tr)
				return []string{"++skip_venv_if_present=false"}
			},
			want: func(tr nemoTree, _ []string) []string {
				var want []string
				for _, name := range []string{"example_mcp_weather", "math_with_judge", "paths", "policy_model", "weather_agent"} {
					v := folders(tr)[name] + "/.venv"
					if name == "example_mcp_weather" || name == "paths" {
						want = append(want, name+": the setup step would run uv (skip_venv_if_present is not true), which is not on PATH: install uv, or create "+v+" (python3 -m venv --without-pip "+v+": gymkit's app.py needs Python's standard library only) and set skip_venv_if_present: true")
						continue
					}
					want = append(want, name+": the setup step would run uv (skip_venv_if_present is not true), which is not on PATH: install uv (the setup step installs the server's requirements with it), or create "+v+
						" with them installed (a NeMo Python server needs nemo-gym and what "+folders(tr)[name]+"/requirements.txt lists) and set skip_venv_if_present: true")
				}
				return want
			},
		},
		{
			name: "uv_venv_dir elsewhere: the .venvs are looked for under it",
			setup: func(t *testing.T, tr nemoTree) []string {
				dir := t.TempDir()
				for _, rel := range []string{"resources_servers/example_mcp_weather", "resources_servers/math_with_judge", "resources_servers/gymkit_test_paths",
					"responses_api_models/openai_model", "responses_api_agents/simple_agent"} {
					venvs(t, filepath.Join(dir, rel))
				}
				return []string{"++uv_venv_dir=" + dir}
			},
			want: none,
		},
	})
}

// path: a path key (config.Path) of a gymkit server whose value will not
// name an existing file under the launcher (relative: under the server
// folder); plain strings are never paths.
func TestCheckNemoPath(t *testing.T) {
	key := "paths.resources_servers.gymkit_test_paths."
	runNemoCases(t, findPath, []nemoCase{
		{name: "data_dir: data, under the server folder", setup: noArgs, want: none},
		{
			name:  "a relative path missing under the server folder",
			setup: func(*testing.T, nemoTree) []string { return []string{"++" + key + "data_dir=missing/dir"} },
			want: func(tr nemoTree, _ []string) []string {
				return []string{key + "data_dir: \"missing/dir\" is relative, so under the launcher it names " + tr.root + "/resources_servers/gymkit_test_paths/missing/dir (a relative path resolves against the server folder, the working directory NeMo gives each server), which does not exist; give an absolute path, or one relative to the server folder"}
			},
		},
		{
			name: "the recording's data_dir: data/shared, relative to the launcher's working directory",
			setup: func(t *testing.T, tr nemoTree) []string {
				mkfile(t, filepath.Join(tr.root, "data", "shared", "tools.json"), "[]")
				mkfile(t, filepath.Join(tr.root, "configs", "data.yaml"), "data_dir: data/shared\npaths:\n  resources_servers:\n    gymkit_test_paths: {tools_file: \"${data_dir}/tools.json\"}\n")
				return []string{"configs/data.yaml"}
			},
			want: func(tr nemoTree, _ []string) []string {
				return []string{key + "tools_file: \"data/shared/tools.json\" is relative, so under the launcher it names " + tr.root + "/resources_servers/gymkit_test_paths/data/shared/tools.json (a relative path resolves against the server folder, the working directory NeMo gives each server), which does not exist" +
					"; it comes from the top-level data_dir: data/shared, which the launcher does not make absolute; " + tr.root + "/data/shared/tools.json exists: make data_dir absolute (++data_dir=" + tr.root + "/data/shared)"}
			},
		},
		{
			name: "the same data laid out under the server folder",
			setup: func(t *testing.T, tr nemoTree) []string {
				mkfile(t, filepath.Join(tr.root, "servers", "gymkit_test_paths", "data", "shared", "tools.json"), "[]")
				mkfile(t, filepath.Join(tr.root, "configs", "data.yaml"), "data_dir: data/shared\npaths:\n  resources_servers:\n    gymkit_test_paths: {tools_file: \"${data_dir}/tools.json\"}\n")
				return []string{"configs/data.yaml"}
			},
			want: none,
		},
		{
			name: "an absolute path that does not exist",
			setup: func(*testing.T, nemoTree) []string {
				return []string{"++" + key + "tools_file=/nonexistent/tools.json"}
			},
			want: func(nemoTree, []string) []string {
				return []string{key + "tools_file: /nonexistent/tools.json does not exist"}
			},
		},
	})
}

// port: two servers on one port, a port in disallowed_ports or the head
// server's, a port in use on this host now (the head server's too).
func TestCheckNemoPort(t *testing.T) {
	weather := "example_mcp_weather.resources_servers.example_mcp_weather"
	model := "policy_model.responses_api_models.openai_model"
	runNemoCases(t, findPort, []nemoCase{
		{
			name: "distinct free ports",
			setup: func(t *testing.T, _ nemoTree) []string {
				return []string{"++" + weather + ".port=" + strconv.Itoa(closedPort(t))}
			},
			want: none,
		},
		{
			name: "a gymkit server and the model on one port",
			setup: func(t *testing.T, _ nemoTree) []string {
				p := strconv.Itoa(closedPort(t))
				return []string{"++" + weather + ".port=" + p, "++" + model + ".port=" + p}
			},
			want: func(_ nemoTree, args []string) []string {
				p := args[0][strings.LastIndexByte(args[0], '=')+1:]
				return []string{model + ".port: " + p + " is also the port of example_mcp_weather"}
			},
		},
		{
			name: "two gymkit servers on one port",
			setup: func(t *testing.T, _ nemoTree) []string {
				p := strconv.Itoa(closedPort(t))
				return []string{"++" + weather + ".port=" + p, "++paths.resources_servers.gymkit_test_paths.port=" + p}
			},
			want: func(_ nemoTree, args []string) []string {
				p := args[0][strings.LastIndexByte(args[0], '=')+1:]
				return []string{"paths.resources_servers.gymkit_test_paths.port: " + p + " is also the port of example_mcp_weather"}
			},
		},
		{
			name: "a port in disallowed_ports",
			setup: func(t *testing.T, _ nemoTree) []string {
				p := strconv.Itoa(closedPort(t))
				return []string{"++" + weather + ".port=" + p, "++disallowed_ports=[" + p + "]"}
			},
			want: func(_ nemoTree, args []string) []string {
				p := args[0][strings.LastIndexByte(args[0], '=')+1:]
				return []string{weather + ".port: " + p + " is in disallowed_ports"}
			},
		},
		{
			name: "the head server's port",
			setup: func(_ *testing.T, tr nemoTree) []string {
				return []string{"++" + weather + ".port=" + strconv.Itoa(tr.headPort)}
			},
			want: func(tr nemoTree, _ []string) []string {
				return []string{weather + ".port: " + strconv.Itoa(tr.headPort) + " is the head server's port (head_server.port, default 11000)"}
			},
		},
		{
			name: "a port in use now",
			setup: func(t *testing.T, _ nemoTree) []string {
				return []string{"++" + weather + ".port=" + strconv.Itoa(holdPort(t))}
			},
			want: func(_ nemoTree, args []string) []string {
				p := args[0][strings.LastIndexByte(args[0], '=')+1:]
				return []string{weather + ".port: 127.0.0.1:" + p + " is in use on this host now (a server left from an earlier launch? docs/nemo.md, Stopping)"}
			},
		},
		{
			name: "the head server's port in use now",
			setup: func(t *testing.T, _ nemoTree) []string {
				return []string{"++head_server.port=" + strconv.Itoa(holdPort(t))}
			},
			want: func(_ nemoTree, args []string) []string {
				p := args[0][strings.LastIndexByte(args[0], '=')+1:]
				return []string{"head_server: 127.0.0.1:" + p + " is in use on this host now: the launcher's head server cannot start (a launcher left from an earlier run? docs/nemo.md, Stopping)"}
			},
		},
	})
}

// config: what serve --nemo would refuse a gymkit instance for, and the
// top-level settings gymkit reads; the problems of a Python server's block
// are not gymkit's to report.
func TestCheckNemoConfig(t *testing.T) {
	weather := "example_mcp_weather.resources_servers.example_mcp_weather"
	runNemoCases(t, findConfig, []nemoCase{
		{
			name: "a Python server's block gymkit would refuse",
			setup: func(*testing.T, nemoTree) []string {
				return []string{"++math_with_judge.resources_servers.math_with_judge.max_body_bytes=lots"}
			},
			want: none,
		},
		{
			name: "two gymkit servers on one port: a port finding, not also a config one",
			setup: func(t *testing.T, _ nemoTree) []string {
				p := strconv.Itoa(closedPort(t))
				return []string{"++" + weather + ".port=" + p, "++paths.resources_servers.gymkit_test_paths.port=" + p}
			},
			want:       none,
			otherKinds: true,
		},
		{
			name:  "an unknown key of a gymkit server",
			setup: func(*testing.T, nemoTree) []string { return []string{"++" + weather + ".default_cty=Paris"} },
			want: func(nemoTree, []string) []string {
				return []string{"example_mcp_weather: command line: " + weather + ".default_cty: unknown key (server type example_mcp_weather has no keys of its own; the framework keys are " +
					"allow_weak_secret, allowed_agents, allowed_model_types, auth, body_read_timeout, close_session, cors, datasets, description, domain, entrypoint, expose_tools_over_mcp, host, " +
					"mask_internal_errors, max_body_bytes, max_inflight_body_bytes, max_json_depth, max_json_elements, mcp, mcp_allowed_hosts, mcp_token_secret, metrics, num_workers, openapi, port, " +
					"session, session_idle_timeout, session_lifetime, session_secret, tool_timeout, tool_timeouts, value, verified)"}
			},
		},
		{
			name:  "a setting gymkit reads",
			setup: func(*testing.T, nemoTree) []string { return []string{"++port_range_low=low"} },
			want: func(nemoTree, []string) []string {
				return []string{"port_range_low: command line: port_range_low: expected an integer, got string \"low\""}
			},
		},
		{
			name:  "an interpolation that does not resolve",
			setup: func(*testing.T, nemoTree) []string { return []string{"++" + weather + ".description=${nowhere}"} },
			want: func(nemoTree, []string) []string {
				return []string{"example_mcp_weather: command line: " + weather + ".description: ${nowhere}: key nowhere not found"}
			},
		},
	})
}

// configs/nemo_stack.yaml is the guide's config (docs/nemo.md shows it, its
// header comment aside), and gymkit check --nemo finds nothing to fix in it
// from the repository root: the four shipped environments through their
// resources_servers links, NeMo's servers in its install root.
func TestNemoStackConfig(t *testing.T) {
	file, err := os.ReadFile(filepath.Join("..", "configs", "nemo_stack.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join("..", "docs", "nemo.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(doc), "```yaml\n")
	block, _, _ = strings.Cut(block, "```\n")
	_, body, _ := strings.Cut(string(file), "\n\n") // after the header comment
	if !ok || block != body {
		t.Errorf("docs/nemo.md's first yaml block is not configs/nemo_stack.yaml after its header:\n%s\n---\n%s", block, body)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	nemo := fakeNemo(t)
	launcherEnv(t, root, nemo, true)
	code, stdout, stderr := gymkitRun(t, "check", "--nemo", "configs/nemo_stack.yaml", "++head_server.port="+strconv.Itoa(closedPort(t)))
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, name := range []string{"example_mcp_weather", "example_session_state_mgmt", "math_advanced_calculations", "workplace_assistant"} {
		if want := "  " + name + ": resources_servers/" + name + ", gymkit: " + filepath.Join(root, "resources_servers", name) + " (root 1)\n"; !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	for _, s := range []string{"math_with_judge: resources_servers/math_with_judge", "workplace_assistant_simple_agent: responses_api_agents/simple_agent", "policy_model: responses_api_models/openai_model"} {
		if !strings.Contains(stdout, "  "+s+", Python: "+nemo) {
			t.Errorf("stdout lacks %s in NeMo's tree:\n%s", s, stdout)
		}
	}
}

// The recording's four_shipped.yaml (../shared/data/nemo-launcher/configs),
// checked from the repository root: its relative data_dir: data/shared
// leaves workplace_assistant's two paths naming nothing under the server
// folder, which is why the recorded way4a run failed; nothing else is
// reported.
func TestCheckNemoRecordedConfig(t *testing.T) {
	recorded, err := filepath.Abs(filepath.Join("..", "..", "shared", "data", "nemo-launcher", "configs", "four_shipped.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	launcherEnv(t, root, fakeNemo(t), true)
	code, stdout, stderr := gymkitRun(t, "check", "--nemo", recorded, "++head_server.port="+strconv.Itoa(closedPort(t)))
	key := "workplace_assistant.resources_servers.workplace_assistant."
	dir := filepath.Join(root, "resources_servers", "workplace_assistant")
	want := "gymkit check --nemo: 2 findings; gym env start would not run this configuration as written:\n"
	for _, k := range []string{"data_dir", "tools_file"} {
		v := map[string]string{"data_dir": "data/shared/workplace_assistant/csv_data", "tools_file": "data/shared/workplace_assistant/tools.json"}[k]
		want += "\tpath: " + key + k + ": \"" + v + "\" is relative, so under the launcher it names " + filepath.Join(dir, v) +
			" (a relative path resolves against the server folder, the working directory NeMo gives each server), which does not exist" +
			"; it comes from the top-level data_dir: data/shared, which the launcher does not make absolute; give an absolute path, or one relative to the server folder\n"
	}
	if code != 1 || stderr != want {
		t.Errorf("exit %d, stderr:\n%s\nwant:\n%s\nstdout:\n%s", code, stderr, want, stdout)
	}
}
