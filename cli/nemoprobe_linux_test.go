package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// check --nemo's python3 look-up of NeMo's install root is bounded and sees
// what the launcher sees: a python3 whose child keeps its stdout open after
// it answered costs a second, one that hangs is killed with its children at
// the timeout, one that writes endlessly is killed after 4 KiB, each with a
// note; a nemo_gym.py in the working directory is not NeMo's.
func TestCheckNemoPythonProbe(t *testing.T) {
	timeout := nemoProbeTimeout
	nemoProbeTimeout = 2 * time.Second
	t.Cleanup(func() { nemoProbeTimeout = timeout })
	for _, tc := range []struct {
		name    string
		wrapper string // python3 on PATH: a shell script; %s is the interpreter, %p a file for a pid
		local   bool   // a nemo_gym.py in the working directory
		note    string // the note on stderr; "" when NeMo's install root is found
	}{
		{name: "a child keeps stdout open after python3 answered", wrapper: "/bin/sleep 60 &\necho $! > %p\nexec %s \"$@\""},
		{name: "python3 hangs with stdout open", wrapper: "/bin/sleep 60 &\necho $! > %p\nwait",
			note: "NeMo's install root is unknown (python3 did not answer within 2s)"},
		{name: "python3 writes endlessly", wrapper: "while :; do echo /a/path/that/does/not/end; done",
			note: "NeMo's install root is unknown (python3 wrote more than 4096 bytes where a path was expected)"},
		{name: "a nemo_gym.py in the working directory", wrapper: "exec %s \"$@\"", local: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := newNemoTree(t, true)
			pidFile := filepath.Join(t.TempDir(), "pid")
			python3 := filepath.Join(tr.bin, "python3")
			if err := os.Remove(python3); err != nil {
				t.Fatal(err)
			}
			script := strings.NewReplacer("%s", pythonExe(t), "%p", pidFile).Replace(tc.wrapper)
			mkfile(t, python3, "#!/bin/sh\n"+script+"\n")
			if err := os.Chmod(python3, 0o755); err != nil {
				t.Fatal(err)
			}
			if tc.local {
				mkfile(t, filepath.Join(tr.root, "nemo_gym.py"), "# not NeMo\n")
			}
			start := time.Now()
			code, stdout, stderr := gymkitRun(t, "check", "--nemo", "configs/nemo.yaml")
			// About 2 s at most here (the timeout); unbounded, python3's child
			// held check --nemo for its 60 s. Slack for a loaded machine.
			if took := time.Since(start); took > 15*time.Second {
				t.Errorf("check --nemo took %v", took)
			}
			install := "  2. " + tr.nemo + ": NeMo's install root (python3's nemo_gym)\n"
			if tc.note == "" {
				if code != 0 || !strings.Contains(stdout, install) || stderr != "" {
					t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s\nwant exit 0 and the root %q", code, stdout, stderr, install)
				}
			} else if note := "gymkit check --nemo: note: " + tc.note + ": "; !strings.Contains(stderr, note) || strings.Contains(stdout, "NeMo's install root") {
				t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s\nwant the note %q", code, stdout, stderr, note)
			}
			if b, err := os.ReadFile(pidFile); err == nil {
				pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
				waitGone(t, pid, 2*time.Second) // python3's child is killed with it
			}
		})
	}
}
