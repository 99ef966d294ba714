package pymodel

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/gymkit/gymkit/internal/lax"
	"github.com/gymkit/gymkit/internal/pyjson"
)

// peerDir is NeMo Gym's recorded answers, ../shared/data/nemo-gym-peer
// beside the module root (the go.mod above the working directory); "" when
// there is no go.mod above it.
var peerDir = func() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "..", "shared", "data", "nemo-gym-peer")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}()

// TestGoldenVerifyParts validates the responses_create_params and response
// of every recorded /verify request of the goldens and compares the dump with
// Python's echo (200 answers) or the items with Python's 422 items under
// "response" / "responses_create_params".
func TestGoldenVerifyParts(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(peerDir, "*.jsonl"))
	if len(files) == 0 {
		t.Skip("goldens not found in " + peerDir)
	}
	n := 0
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var line struct {
				Scenario string
				Steps    []struct {
					Name, Path, Body string
					Peer             struct {
						Status int
						Body   string
					}
				}
			}
			if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
				t.Fatal(err)
			}
			for _, st := range line.Steps {
				if st.Path != "/verify" || len(st.Body) > 1<<20 {
					continue
				}
				body, err := pyjson.Parse([]byte(st.Body))
				if err != nil {
					continue
				}
				peer, err := pyjson.Parse([]byte(st.Peer.Body))
				if err != nil {
					continue
				}
				name := filepath.Base(f) + ": " + line.Scenario + " / " + st.Name
				for _, part := range []struct{ key, model string }{
					{"responses_create_params", "NeMoGymResponseCreateParamsNonStreaming"},
					{"response", "NeMoGymResponse"},
				} {
					in, ok := body.Get(part.key)
					if !ok {
						continue
					}
					dump, items := Validate(part.model, in, lax.ModeHTTP)
					switch st.Peer.Status {
					case 200:
						n++
						want, _ := peer.Get(part.key)
						if g, w := enc(t, dump), enc(t, want); g != w || len(items) > 0 {
							t.Errorf("%s: %s:\n got %s (items %v)\nwant %s", name, part.key, g, items, w)
						}
					case 422:
						det, _ := peer.Get("detail")
						var want []pyjson.Value
						for _, it := range det.Items {
							loc, _ := it.Get("loc")
							if len(loc.Items) >= 2 && loc.Items[1].Str == part.key {
								want = append(want, it)
							}
						}
						if len(want) == 0 {
							if len(items) > 0 {
								t.Errorf("%s: %s: unexpected items %s", name, part.key, lax.RenderHTTP(items))
							}
							continue
						}
						n++
						for i := range items {
							items[i].Loc = append([]any{part.key}, items[i].Loc...)
						}
						got := string(lax.RenderHTTP(items))
						w := enc(t, pyjson.ObjectValue(pyjson.Member{Key: "detail", Value: pyjson.ArrayValue(want...)}))
						if got != w {
							t.Errorf("%s: %s:\n got %s\nwant %s", name, part.key, got, w)
						}
					}
				}
			}
		}
		fh.Close()
	}
	if n == 0 {
		t.Fatal("no verify steps compared")
	}
	t.Logf("%d verify parts compared", n)
}

func enc(t *testing.T, v pyjson.Value) string {
	b, err := pyjson.AppendValue(nil, &v, pyjson.Python)
	if err != nil {
		t.Fatal(err)
	}
	return string(bytes.TrimSpace(b))
}
