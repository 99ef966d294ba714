//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mixedStack is a launcher's world with a module of the user's own beside
// gymkit's: the nemoTree (gymkit's example_mcp_weather and
// gymkit_test_paths, NeMo's servers), plus a module written by gymkit new
// (example.com/myenvs, its environment my_env), named first with
// --search-dir; the launcher config also lists my_env as the instance
// "mine". The test binary, in process, does not register my_env; bin/myenvs
// of the module, when built, is the test binary as gymkit registering it.
type mixedStack struct {
	nemoTree
	mod     string // the module's root
	builtIn string // <mod>/bin/myenvs
}

func newMixedStack(t *testing.T, built bool) mixedStack {
	t.Helper()
	m := mixedStack{nemoTree: newNemoTree(t, true), mod: appModule(t)}
	m.builtIn = filepath.Join(m.mod, "bin", "myenvs")
	if err := os.MkdirAll(filepath.Join(m.mod, "servers", "my_env", "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	if built {
		gymkitBinary(t, m.builtIn, "my_env")
	}
	m.appendConfig(t, "mine:\n  resources_servers:\n    my_env: {entrypoint: app.py, domain: other, size: 3, data_dir: data}\n")
	return m
}

// gymkitBinary writes at path a gymkit binary: the test binary run as
// gymkit (see TestMain), registering the server type foreign too unless it
// is "".
func gymkitBinary(t *testing.T, path, foreign string) {
	t.Helper()
	env := runMainEnv + "=1 " + raceExitNow
	if foreign != "" {
		env += " " + foreignTypeEnv + "=" + foreign
	}
	mkfile(t, path, "#!/bin/sh\nexport "+env+"\nexec "+os.Args[0]+" \"$@\"\n")
	if err := os.Chmod(path, 0o755); err != nil {
		t.Fatal(err)
	}
}

// check runs gymkit check --nemo --search-dir <module> configs/nemo.yaml
// with args, and returns its exit status, stdout and stderr.
func (m mixedStack) check(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return gymkitRun(t, append([]string{"check", "--nemo", "--search-dir", m.mod, "configs/nemo.yaml"}, args...)...)
}

// A gymkit environment is told by its folder's app.py, not by what the
// checking binary registers: the user's my_env, served by their module's
// binary, is gymkit's, and its block is checked by that binary (gymkit
// check in the server folder) when it is built; a note says how to check it
// when it is not.
func TestCheckNemoOtherModule(t *testing.T) {
	folder := func(m mixedStack) string { return filepath.Join(m.mod, "resources_servers", "my_env") }
	by := func(m mixedStack) string { return " (checked by " + m.builtIn + " check, in " + folder(m) + ")" }
	t.Run("built, clean", func(t *testing.T) {
		m := newMixedStack(t, true)
		code, stdout, stderr := m.check(t)
		if want := "  mine: resources_servers/my_env, gymkit: " + folder(m) + " (root 1)\n"; code != 0 || !strings.Contains(stdout, want) || stderr != "" {
			t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s\nwant exit 0 and %q", code, stdout, stderr, want)
		}
	})
	t.Run("built, a key its type does not have", func(t *testing.T) {
		m := newMixedStack(t, true)
		code, stdout, stderr := m.check(t, "++mine.resources_servers.my_env.sise=4")
		want := "\tconfig: mine: mine.resources_servers.my_env.sise: unknown key; did you mean `size`?"
		if code != 1 || !strings.Contains(stderr, want) || !strings.Contains(stderr, by(m)+"\n") {
			t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s\nwant exit 1 and %q ... %q", code, stdout, stderr, want, by(m))
		}
	})
	t.Run("built, a relative data_dir missing under the server folder", func(t *testing.T) {
		m := newMixedStack(t, true)
		code, stdout, stderr := m.check(t, "++mine.resources_servers.my_env.data_dir=nowhere")
		want := "data_dir: stat " + filepath.Join(folder(m), "nowhere") + ": no such file or directory"
		if code != 1 || !strings.Contains(stderr, "\tconfig: mine: ") || !strings.Contains(stderr, want) {
			t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s\nwant exit 1 and a config finding with %q", code, stdout, stderr, want)
		}
	})
	t.Run("not built", func(t *testing.T) {
		m := newMixedStack(t, false)
		code, stdout, stderr := m.check(t)
		want := "gymkit check --nemo: note: mine's keys are not checked: server type my_env is not registered in this binary, and " + m.builtIn +
			", the binary its app.py runs, is not built; build it (cd " + m.mod + " && go build -o bin/myenvs .) and run gymkit check --nemo again\n"
		if code != 0 || !strings.Contains(stdout, "  mine: resources_servers/my_env, gymkit: ") || stderr != want {
			t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s\nwant exit 0 and %q", code, stdout, stderr, want)
		}
	})
}

// With GYMKIT_BIN set, every gymkit app.py runs that one binary: check
// --nemo reports each gymkit server whose type it does not register (the
// server would exit 2 at its start), and a GYMKIT_BIN that is no binary
// once; one that registers every type checks the blocks this binary does
// not know.
func TestCheckNemoGymkitBin(t *testing.T) {
	t.Run("without the user's type", func(t *testing.T) {
		m := newMixedStack(t, true)
		bin := filepath.Join(t.TempDir(), "gymkit")
		gymkitBinary(t, bin, "")
		t.Setenv("GYMKIT_BIN", bin)
		code, stdout, stderr, found := nemoFindings(t, findBinary, "--search-dir", m.mod, "configs/nemo.yaml")
		prefix := "mine: GYMKIT_BIN=" + bin + " does not register server type my_env (it registers example_mcp_weather, "
		suffix := "): every gymkit app.py runs that binary when GYMKIT_BIN is set, so this server would exit 2 at its start; unset GYMKIT_BIN (each app.py then runs its own module's binary), " +
			"or set it to a binary whose main package blank-imports every gymkit environment of the config (docs/nemo.md)"
		if code != 1 || len(found) != 1 || !strings.HasPrefix(found[0], prefix) || !strings.HasSuffix(found[0], suffix) {
			t.Errorf("exit %d, binary findings %q, want exactly %q...%q\nstdout:\n%s\nstderr:\n%s", code, found, prefix, suffix, stdout, stderr)
		}
	})
	t.Run("the module's binary, which registers every type", func(t *testing.T) {
		m := newMixedStack(t, true)
		t.Setenv("GYMKIT_BIN", m.builtIn)
		code, stdout, stderr := m.check(t, "++mine.resources_servers.my_env.size=big")
		want := "\tconfig: mine: mine.resources_servers.my_env.size: "
		if code != 1 || strings.Contains(stderr, "\tbinary: ") || !strings.Contains(stderr, want) {
			t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s\nwant exit 1, no binary finding and %q", code, stdout, stderr, want)
		}
	})
	t.Run("no binary there", func(t *testing.T) {
		m := newMixedStack(t, true)
		t.Setenv("GYMKIT_BIN", "/nonexistent/gymkit")
		code, stdout, stderr, found := nemoFindings(t, findBinary, "--search-dir", m.mod, "configs/nemo.yaml")
		want := "GYMKIT_BIN: GYMKIT_BIN=/nonexistent/gymkit, which every gymkit app.py runs when it is set, is not an executable file: no gymkit server of this config would start"
		if code != 1 || strings.Join(found, "\n") != want {
			t.Errorf("exit %d, binary findings %q, want %q\nstdout:\n%s\nstderr:\n%s", code, found, want, stdout, stderr)
		}
	})
}

// serve --nemo of a server type the binary does not register, with
// GYMKIT_BIN set: the error says that GYMKIT_BIN is the binary every app.py
// runs, not only that a blank import is missing.
func TestServeNemoGymkitBinHint(t *testing.T) {
	t.Setenv(envConfigDict, "mine:\n  resources_servers:\n    my_env: {entrypoint: app.py, domain: other}\n")
	t.Setenv(envConfigPath, "mine")
	t.Setenv("GYMKIT_BIN", "/opt/gymkit/bin/gymkit")
	code, _, stderr := gymkitRun(t, "serve", "--nemo")
	want := `unknown server type "my_env" (registered: example_mcp_weather, `
	hint := `); GYMKIT_BIN=/opt/gymkit/bin/gymkit is set, and every gymkit app.py runs that binary when it is: unset GYMKIT_BIN so that each environment's app.py runs its own module's binary, ` +
		`or set it to a binary whose main package blank-imports the package that calls framework.Register("my_env", ...) (docs/nemo.md)`
	if code != 2 || !strings.Contains(stderr, want) || !strings.Contains(stderr, hint) {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 2, %q and %q", code, stderr, want, hint)
	}
	t.Setenv("GYMKIT_BIN", "")
	if code, _, stderr := gymkitRun(t, "serve", "--nemo"); code != 2 || strings.Contains(stderr, "GYMKIT_BIN") || !strings.Contains(stderr, "blank-import") {
		t.Errorf("without GYMKIT_BIN: exit %d, stderr:\n%s\nwant exit 2 and the blank-import hint alone", code, stderr)
	}
}
