package workplace_test

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/gymkit/gymkit/server/servertest"
	workplace "github.com/gymkit/gymkit/servers/workplace_assistant"
)

// firstExampleRow returns the first line of example.jsonl as sent by
// NeMo's agents to /seed_session: the whole dataset row (16.6 KB).
func firstExampleRow(tb testing.TB) []byte {
	tb.Helper()
	f, err := os.Open(dataPath(tb, "example.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	if !sc.Scan() {
		tb.Fatalf("example.jsonl: no row (%v)", sc.Err())
	}
	return bytes.Clone(sc.Bytes())
}

// seeder sends fresh seeds (no cookie: a new rollout each) to an MCP-exposed
// workplace instance over loopback HTTP, on one keep-alive connection.
type seeder struct {
	url    string
	client *http.Client
}

func newSeeder(tb testing.TB) *seeder {
	ts := servertest.New(tb, newWorkplace(tb), servertest.Options{ServerType: workplace.Name, Name: workplace.Name, MCP: true})
	tr := &http.Transport{MaxIdleConnsPerHost: 1}
	tb.Cleanup(tr.CloseIdleConnections)
	return &seeder{url: ts.URL + "/seed_session", client: &http.Client{Transport: tr}}
}

// seed POSTs body and checks the answer: 200, a session cookie and the MCP
// session token (so the allow-list hook ran).
func (s *seeder) seed(tb testing.TB, body []byte) {
	req, err := http.NewRequest(http.MethodPost, s.url, bytes.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := s.client.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	ans, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil || res.StatusCode != 200 || len(res.Header.Values("Set-Cookie")) != 1 ||
		servertest.SeedToken(ans) == "" {
		tb.Fatalf("seed: %d %s (%v)", res.StatusCode, ans, err)
	}
}

// median returns the median of ds (which it sorts); 0 for none.
func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// BenchmarkSeedRow is one fresh /seed_session of an MCP-exposed
// workplace_assistant instance (expose_tools_over_mcp: true, as shipped:
// the answer carries the MCP token, whose allow-list the AllowedToolsForSeed
// hook reads from the seed body) through real HTTP on loopback, with {} and
// with the first real row of NeMo Gym's example.jsonl (16.6 KB). The
// target (docs/performance.md, "One parse per seed"): the row costs at
// most 2x {}.
//
// empty and row measure each alone (B/op and allocs/op count the client's
// side too); row_vs_empty alternates the two in one loop, so that both see
// the same load, and reports the ratio of their median times
// (x-row/empty; a loaded machine's outliers left out) with each median
// (empty-ns, row-ns).
//
//	go test -run '^$' -bench SeedRow -benchmem ./servers/workplace_assistant/
func BenchmarkSeedRow(b *testing.B) {
	s := newSeeder(b)
	row := firstExampleRow(b)
	empty := []byte(`{}`)
	b.Run("empty", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s.seed(b, empty)
		}
	})
	b.Run("row", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(row)))
		for b.Loop() {
			s.seed(b, row)
		}
	})
	b.Run("row_vs_empty", func(b *testing.B) {
		var te, tr []time.Duration
		for b.Loop() {
			t0 := time.Now()
			s.seed(b, empty)
			t1 := time.Now()
			s.seed(b, row)
			te, tr = append(te, t1.Sub(t0)), append(tr, time.Since(t1))
		}
		me, mr := median(te), median(tr)
		b.ReportMetric(float64(mr)/float64(me), "x-row/empty")
		b.ReportMetric(float64(me.Nanoseconds()), "empty-ns")
		b.ReportMetric(float64(mr.Nanoseconds()), "row-ns")
	})
}

// TestSeedRowAllowList: the real row (no verifier_metadata) leaves the
// rollout unrestricted over MCP, and a row that carries
// verifier_metadata.allowed_tools after its 16 KB of other keys restricts
// it: the hook finds the key wherever it lies in the row.
func TestSeedRowAllowList(t *testing.T) {
	t.Parallel()
	ts := servertest.New(t, newWorkplace(t), servertest.Options{ServerType: workplace.Name, Name: workplace.Name, MCP: true})
	row := firstExampleRow(t)
	all := ts.Rollout()
	all.Post("/seed_session", `{}`)
	unrestricted := len(all.MCP().ToolNames())
	if unrestricted < 20 {
		t.Fatalf("a {} seed's rollout lists %d tools", unrestricted)
	}
	// The row with a key added after all of its own.
	plus := func(member string) []byte {
		open := bytes.TrimSuffix(bytes.TrimSpace(row), []byte("}"))
		return append(bytes.Clone(open), ", "+member+"}"...)
	}
	for _, tc := range []struct {
		name string
		body []byte
		want int // tools listed; -1: as many as a {} seed's rollout
	}{
		{"real row", row, -1},
		{"allowed_tools last", plus(`"verifier_metadata": {"allowed_tools": ["email_search_emails", "email_send_email"]}`), 2},
		{"duplicated key: the last wins", plus(`"verifier_metadata": {"allowed_tools": []}, "verifier_metadata": {"allowed_tools": ["email_send_email"]}`), 1},
		{"escaped key", plus(`"verifier\u005fmetadata": {"allowed_tools": ["email_send_email"]}`), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ro := ts.Rollout()
			if res := ro.Post("/seed_session", tc.body); res.Status != 200 {
				t.Fatalf("seed: %d %s", res.Status, res.Body)
			}
			got := len(ro.MCP().ToolNames())
			if tc.want < 0 {
				tc.want = unrestricted
			}
			if got != tc.want {
				t.Errorf("lists %d tools, want %d: %v", got, tc.want, ro.MCP().ToolNames())
			}
		})
	}
}
