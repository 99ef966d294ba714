package cli

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// bigAnswer is a /verify answer of about n bytes: a reward and a list of small integers, the
// shape that costs a parsed tree the most per byte (one 72-byte Value per two bytes of text).
func bigAnswer(n int) []byte {
	var b bytes.Buffer
	b.Grow(n + 64)
	b.WriteString(`{"reward":1.0,"big":[`)
	for b.Len() < n-2 {
		b.WriteString("7,")
	}
	b.WriteString("7]}")
	return b.Bytes()
}

// answeringServer answers /seed_session {}, /verify with answer (with its Content-Length) and
// /aggregate_metrics a small object, reading and dropping every body.
func answeringServer(t *testing.T, answer []byte) string {
	return fakeServer(t, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/verify":
			w.Header().Set("Content-Length", strconv.Itoa(len(answer)))
			w.Write(answer)
		case "/aggregate_metrics":
			w.Write([]byte(`{"agent_metrics":{},"key_metrics":{"mean/reward":1.0},"group_level_metrics":[]}`))
		default:
			w.Write([]byte(`{}`))
		}
	})
}

// peakRSS runs gymkit (this test binary as gymkit, see TestMain) with args in dir and
// returns its exit status, output and peak resident memory in bytes.
func peakRSS(t *testing.T, dir string, args ...string) (int, string, int64) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), runMainEnv+"=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String(), cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
}

// gymkit rollout and compare hold an answer in memory a small multiple of its size, whatever
// its shape: the verify answer is parsed only at its top level (internal/pyjson's lazy tree)
// and written out from its text; a body with a Content-Length is read into one buffer of that
// size; an answer parsed whole is bounded in values (--max-answer-values); compare judges each
// difference as it is found and looks object keys up through an index. Measured as the peak
// RSS of a gymkit process above that of a run with a tiny answer (docs/cli.md states the
// figures). Before, a verify answer of small integers cost 50 times its size (a 32 MiB answer
// took 1.6 GB), and compare walked an object's keys in n² steps.
func TestClientAnswerMemory(t *testing.T) {
	if raceEnabled {
		t.Skip("memory figures under -race are the race runtime's")
	}
	dir := t.TempDir()
	row := `{"responses_create_params":{"input":"x"}}` + "\n"
	one := writeFile(t, dir, "one.jsonl", row)
	_, _, base := peakRSS(t, dir, "rollout", "--url", answeringServer(t, []byte(`{"reward":1.0}`)), "-i", one, "-o", filepath.Join(dir, "base.jsonl"))

	// One rollout: a 16 MiB verify answer of 8.4M one-digit values.
	answer := bigAnswer(16 << 20)
	code, out, peak := peakRSS(t, dir, "rollout", "--url", answeringServer(t, answer), "-i", one, "-o", filepath.Join(dir, "big.jsonl"),
		"--max-answer-values", "20000000")
	if ratio := float64(peak-base) / float64(len(answer)); code != 0 || ratio > 6 {
		t.Errorf("a 16 MiB verify answer: exit %d, peak RSS %d MiB above the base: %.1f times the answer, want at most 6\n%s", code, (peak-base)>>20, ratio, out)
	} else {
		t.Logf("a 16 MiB verify answer: peak RSS %d MiB above the base, %.1f times the answer", (peak-base)>>20, ratio)
	}

	// Four rollouts at once, each answer cut at a 16 MiB bound (no Content-Length, never ending).
	cut := fakeServer(t, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if r.URL.Path == "/verify" {
			endless(w, r)
			return
		}
		w.Write([]byte(`{}`))
	})
	code, out, peak = peakRSS(t, dir, "rollout", "--url", cut, "-i", writeFile(t, dir, "four.jsonl", strings.Repeat(row, 4)),
		"-o", filepath.Join(dir, "cut.jsonl"), "--concurrency", "4", "--max-answer-bytes", "16MiB")
	if ratio := float64(peak-base) / float64(4*16<<20); code != 1 || !strings.Contains(out, "answer_too_large: 4") || ratio > 3 {
		t.Errorf("four answers cut at 16 MiB: exit %d, peak RSS %d MiB above the base: %.1f times the four bounds, want at most 3\n%s", code, (peak-base)>>20, ratio, out)
	} else {
		t.Logf("four answers cut at 16 MiB: peak RSS %d MiB above the base, %.1f times the four bounds", (peak-base)>>20, ratio)
	}

	// compare: a 2 MiB object of 200,000 keys against one without them.
	var o bytes.Buffer
	o.WriteString(`{"reward":1.0`)
	for i := range 200_000 {
		o.WriteString(`,"k` + strconv.Itoa(i) + `":1`)
	}
	o.WriteString(`}`)
	start := time.Now()
	code, out, peak = peakRSS(t, dir, "compare", "--reference", answeringServer(t, o.Bytes()), "--url", answeringServer(t, []byte(`{"reward":1.0}`)), "-i", one)
	took := time.Since(start)
	if ratio := float64(peak-base) / float64(o.Len()); code != 1 || !strings.Contains(out, "    ... and 199900 more\n") || ratio > 60 || took > 10*time.Second {
		t.Errorf("compare, 200,000 keys missing: exit %d after %v, peak RSS %d MiB above the base: %.0f times the answer, want at most 60\n%.2000s", code, took, (peak-base)>>20, ratio, out)
	} else {
		t.Logf("compare, 200,000 keys missing: %v, peak RSS %d MiB above the base, %.0f times the answer", took.Round(time.Millisecond), (peak-base)>>20, ratio)
	}
}
