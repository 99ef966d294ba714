package workplace

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/server/servertest"
)

func dataDir(t testing.TB) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	p := filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "data", "nemo-gym", "workplace_assistant")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("shared data missing: %v", err)
	}
	return p
}

// fakeClock is a settable clock, safe for concurrent use.
type fakeClock struct{ ns atomic.Int64 }

func (c *fakeClock) now() time.Time          { return time.Unix(0, c.ns.Load()) }
func (c *fakeClock) advance(d time.Duration) { c.ns.Add(int64(d)) }

func lifetimeServer(t *testing.T, configure func(*Workplace)) (*servertest.Server, *Workplace, *fakeClock) {
	t.Helper()
	clock := &fakeClock{}
	clock.ns.Store(time.Date(2023, 11, 30, 23, 59, 0, 0, time.UTC).UnixNano())
	s := New()
	s.DataDir = config.Path(filepath.Join(dataDir(t), "csv_data"))
	s.ToolsFile = config.Path(filepath.Join(dataDir(t), "tools.json"))
	s.now = clock.now
	if configure != nil {
		configure(s)
	}
	return servertest.New(t, s, servertest.Options{ServerType: Name, Name: Name}), s, clock
}

const notSeeded = `{"detail":"Session not initialized. Please call seed_session first."}`

func search(ro *servertest.Rollout) (int, string) {
	res := ro.Post("/company_directory_find_email_address", `{"name":"aisha"}`)
	return res.Status, string(res.Body)
}

func seed(t *testing.T, ts *servertest.Server) *servertest.Rollout {
	t.Helper()
	ro := ts.Rollout()
	if res := ro.Post("/seed_session", `{}`); res.Status != 200 {
		t.Fatalf("seed: %d %s", res.Status, res.Body)
	}
	return ro
}

// send sends an email with subject from ro's rollout (a write: the world is
// kept from then on).
func send(ro *servertest.Rollout, subject string) (int, string) {
	res := ro.Post("/email_send_email", `{"recipient":"a@b.co","subject":"`+subject+`","body":"b"}`)
	return res.Status, string(res.Body)
}

// hasEmail reports whether ro's world holds the email sent with subject.
func hasEmail(t *testing.T, ro *servertest.Rollout, subject string) bool {
	t.Helper()
	res := ro.Post("/email_search_emails", `{"query":"`+subject+`"}`)
	if res.Status != 200 {
		t.Fatalf("search %s: %d %s", subject, res.Status, res.Body)
	}
	return strings.Contains(string(res.Body), subject)
}

func mustSend(t *testing.T, ro *servertest.Rollout, subject string) {
	t.Helper()
	if st, body := send(ro, subject); st != 200 || body != `{"output":"Email sent successfully."}` {
		t.Fatalf("send %s: %d %s", subject, st, body)
	}
}

// A seed allocates no world, and neither do calls that only read: only the
// first write keeps one.
func TestUntouchedSeedAllocatesNoWorld(t *testing.T) {
	t.Parallel()
	ts, s, _ := lifetimeServer(t, nil)
	ro := seed(t, ts)
	for range 3 {
		if st, body := search(ro); st != 200 || body != `{"output":["aisha.chen@atlas.com"]}` {
			t.Fatalf("read: %d %s", st, body)
		}
	}
	if res := ro.Post("/calendar_delete_event", `{"event_id":"99999999"}`); string(res.Body) != `{"output":"Event not found."}` {
		t.Fatalf("delete of a missing event: %d %s", res.Status, res.Body)
	}
	if n, b := s.LiveWorlds(), s.WorldBytes(); n != 0 || b != 0 {
		t.Fatalf("after a seed and reads: %d worlds, %d bytes; want none", n, b)
	}
	mustSend(t, ro, "kept-1")
	if n, b := s.LiveWorlds(), s.WorldBytes(); n != 1 || b < 16<<10 {
		t.Fatalf("after a write: %d worlds, %d bytes; want 1 world of the copied email table (>16 KB)", n, b)
	}
	if !hasEmail(t, ro, "kept-1") {
		t.Error("the sent email is gone")
	}
	// An unseeded session still answers NeMo's 400, and allocates nothing.
	if st, body := send(ts.Rollout(), "x"); st != 400 || body != notSeeded {
		t.Errorf("unseeded write: %d %s", st, body)
	}
	if n := s.LiveWorlds(); n != 1 {
		t.Errorf("%d worlds, want 1", n)
	}
}

func TestIdleWorldsExpire(t *testing.T) {
	t.Parallel()
	ts, s, clock := lifetimeServer(t, func(s *Workplace) { s.WorldMaxIdle = time.Hour })
	a, b, fresh := seed(t, ts), seed(t, ts), seed(t, ts)
	mustSend(t, a, "from-a")
	mustSend(t, b, "from-b")
	clock.advance(40 * time.Minute)
	if !hasEmail(t, a, "from-a") { // a used: its idle time restarts
		t.Fatal("a after 40m: its email is gone")
	}
	clock.advance(40 * time.Minute)
	if st, body := search(b); st != 400 || body != notSeeded {
		t.Errorf("b idle 80m: %d %s, want 400", st, body)
	}
	if !hasEmail(t, a, "from-a") {
		t.Error("a idle 40m: its email is gone")
	}
	if n := s.LiveWorlds(); n != 1 {
		t.Errorf("%d live worlds, want 1", n)
	}
	// An untouched seed held nothing to expire: it still has its (base) world.
	if st, _ := search(fresh); st != 200 {
		t.Errorf("untouched seed after 80m: %d, want 200", st)
	}
	b.Post("/seed_session", `{}`) // re-seeding gives a fresh world
	if st, _ := search(b); st != 200 || hasEmail(t, b, "from-b") {
		t.Errorf("b re-seeded: %d, or its old email is back", st)
	}
	clock.advance(2 * time.Hour)
	search(fresh) // any call sweeps
	if n, by := s.LiveWorlds(), s.WorldBytes(); n != 0 || by != 0 {
		t.Errorf("after 2h idle: %d worlds, %d bytes; want none", n, by)
	}
}

// checkFull checks the 503 that refuses a new world.
func checkFull(t *testing.T, res *servertest.Response, limit string) {
	t.Helper()
	want := `{"detail":"Too many live rollouts: ` + limit + ` is reached (the worlds of other rollouts are kept, not evicted); retry after 10 s"}`
	if res.Status != 503 || string(res.Body) != want || res.Header.Get("Retry-After") != "10" {
		t.Errorf("got %d %s (Retry-After %q), want 503 %s with Retry-After 10", res.Status, res.Body, res.Header.Get("Retry-After"), want)
	}
}

// A full store refuses a new world with a retryable 503 and evicts nobody;
// a verify makes room.
func TestFullStoreRefusesNewWorlds(t *testing.T) {
	t.Parallel()
	ts, s, _ := lifetimeServer(t, func(s *Workplace) { s.MaxLiveWorlds = 2 })
	a, b, c := seed(t, ts), seed(t, ts), seed(t, ts)
	mustSend(t, a, "from-a")
	mustSend(t, b, "from-b")
	if st, _ := search(c); st != 200 {
		t.Fatalf("c reads with a full store: %d, want 200", st)
	}
	checkFull(t, c.Post("/email_send_email", `{"recipient":"a@b.co","subject":"from-c","body":"b"}`), "max_live_worlds")
	if !hasEmail(t, a, "from-a") || !hasEmail(t, b, "from-b") {
		t.Fatal("a live world was evicted")
	}
	if hasEmail(t, c, "from-c") {
		t.Error("the refused write was kept")
	}
	mustSend(t, a, "from-a-2") // a kept world keeps working
	if res := a.Post("/verify", minimalVerify); res.Status != 200 {
		t.Fatalf("verify: %d %s", res.Status, res.Body)
	}
	mustSend(t, c, "from-c") // the retry succeeds
	if !hasEmail(t, c, "from-c") || s.LiveWorlds() != 2 {
		t.Errorf("c after a's verify: email kept %v, %d worlds", hasEmail(t, c, "from-c"), s.LiveWorlds())
	}
}

// The default cap is a byte budget: max_world_bytes counts the estimated
// bytes of changed worlds.
func TestWorldByteBudget(t *testing.T) {
	t.Parallel()
	d, err := loadDataset(filepath.Join(dataDir(t), "csv_data"))
	if err != nil {
		t.Fatal(err)
	}
	w := d.newWorld()
	if _, wrote, err := w.callTracked("email_send_email", memberList{{"recipient", vStr("a@b.co")}, {"subject", vStr("from-a")}, {"body", vStr("b")}}.members()); err != nil || !wrote {
		t.Fatalf("send: %v %v", wrote, err)
	}
	one := w.size.Load()
	ts, s, _ := lifetimeServer(t, func(s *Workplace) { s.MaxWorldBytes = 2*one + one/2 })
	a, b, c := seed(t, ts), seed(t, ts), seed(t, ts)
	mustSend(t, a, "from-a")
	if got := s.WorldBytes(); got != one {
		t.Errorf("one world: %d bytes, want %d", got, one)
	}
	mustSend(t, b, "from-a") // same length: same size
	checkFull(t, c.Post("/email_send_email", `{"recipient":"a@b.co","subject":"from-c","body":"b"}`), "max_world_bytes")
	for range 20 { // a live world may grow past the budget
		mustSend(t, a, "more")
	}
	if s.WorldBytes() <= 2*one {
		t.Errorf("a grew, but the store counts %d bytes", s.WorldBytes())
	}
	a.Post("/seed_session", `{}`) // re-seeding frees a's world
	if s.WorldBytes() != one || s.LiveWorlds() != 1 {
		t.Errorf("after a re-seed: %d worlds, %d bytes", s.LiveWorlds(), s.WorldBytes())
	}
	mustSend(t, c, "from-c")
}

// Parallel first writes of one seeded rollout share one world: none is lost.
func TestParallelFirstWritesShareOneWorld(t *testing.T) {
	t.Parallel()
	ts, s, _ := lifetimeServer(t, nil)
	ro := seed(t, ts)
	const n = 40
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			if st, body := send(ro, fmt.Sprintf("parallel-%02d", i)); st != 200 {
				t.Errorf("send %d: %d %s", i, st, body)
			}
		})
	}
	wg.Wait()
	if s.LiveWorlds() != 1 {
		t.Fatalf("%d worlds, want 1", s.LiveWorlds())
	}
	res := ro.Post("/email_search_emails", `{"query":"parallel-","page_size":100}`)
	if got := strings.Count(string(res.Body), "parallel-"); got != n {
		t.Errorf("%d of %d emails kept: %s", got, n, res.Body)
	}
}

// 20,000 cookieless seeds (an attacker's flood) evict no live world, and a
// rollout that seeds during the flood gets its world.
func TestSeedFloodEvictsNoWorld(t *testing.T) {
	t.Parallel()
	ts, s, _ := lifetimeServer(t, nil) // the defaults
	live := seed(t, ts)
	mustSend(t, live, "before-the-flood")
	const seeds, workers = 20000, 32
	var next atomic.Int64
	var late *servertest.Rollout
	var wg sync.WaitGroup
	client := ts.Client()
	for range workers {
		wg.Go(func() {
			for {
				i := next.Add(1)
				if i > seeds {
					return
				}
				if i == seeds/2 {
					late = seed(t, ts)
					mustSend(t, late, "during-the-flood")
				}
				res, err := client.Post(ts.URL+"/seed_session", "application/json", strings.NewReader(`{}`))
				if err != nil {
					t.Error(err)
					return
				}
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode != 200 {
					t.Errorf("seed %d: %d", i, res.StatusCode)
					return
				}
			}
		})
	}
	wg.Wait()
	if !hasEmail(t, live, "before-the-flood") || !hasEmail(t, late, "during-the-flood") {
		t.Fatal("a live rollout lost its world")
	}
	if n := s.LiveWorlds(); n != 2 {
		t.Errorf("%d worlds after %d seeds, want 2", n, seeds)
	}
}

// Release frees a world (the close hook's entry point).
func TestReleaseFreesTheWorld(t *testing.T) {
	t.Parallel()
	ts, s, _ := lifetimeServer(t, nil)
	ro := seed(t, ts)
	mustSend(t, ro, "x")
	var id string
	for k := range s.worlds.byID {
		id = k
	}
	s.ReleaseWorld(id)
	if n, b := s.LiveWorlds(), s.WorldBytes(); n != 0 || b != 0 {
		t.Errorf("after Release: %d worlds, %d bytes", n, b)
	}
	if st, body := search(ro); st != 400 || body != notSeeded {
		t.Errorf("after Release: %d %s, want 400", st, body)
	}
}

const minimalVerify = `{"responses_create_params":{"input":"x"},"response":{"id":"r","created_at":0,"model":"m","object":"response","output":[],"parallel_tool_calls":false,"tool_choice":"auto","tools":[]},"ground_truth":[],"id":0,"category":"c","environment_name":"workplace_assistant"}`

func TestVerifyReleasesTheWorld(t *testing.T) {
	t.Parallel()
	for _, keep := range []bool{false, true} {
		ts, s, _ := lifetimeServer(t, func(s *Workplace) { s.KeepWorldAfterVerify = keep })
		changed, untouched := seed(t, ts), seed(t, ts)
		mustSend(t, changed, "x")
		for _, ro := range []*servertest.Rollout{changed, untouched} {
			if res := ro.Post("/verify", minimalVerify); res.Status != 200 {
				t.Fatalf("verify: %d %s", res.Status, res.Body)
			}
			st, _ := search(ro)
			if keep && st != 200 || !keep && st != 400 {
				t.Errorf("keep_world_after_verify=%v: call after verify gave %d", keep, st)
			}
		}
		if keep && !hasEmail(t, changed, "x") {
			t.Error("keep_world_after_verify: the world lost its email")
		}
		if want := map[bool]int{false: 0, true: 1}[keep]; s.LiveWorlds() != want || (want == 0) != (s.WorldBytes() == 0) {
			t.Errorf("keep_world_after_verify=%v: %d live worlds (%d bytes), want %d", keep, s.LiveWorlds(), s.WorldBytes(), want)
		}
		// Verify of a session never seeded writes nothing and answers 200.
		if res := ts.Rollout().Post("/verify", minimalVerify); res.Status != 200 {
			t.Errorf("unseeded verify: %d %s", res.Status, res.Body)
		}
	}
}

// Worlds share the parsed tables until they write: a write copies the table
// (its row list) and the row it changes, never the base.
func TestWorldsAreCopyOnWrite(t *testing.T) {
	t.Parallel()
	d, err := loadDataset(filepath.Join(dataDir(t), "csv_data"))
	if err != nil {
		t.Fatal(err)
	}
	a, b := d.newWorld(), d.newWorld()
	if a.get(tCalendar) != d.base[tCalendar] || b.get(tCalendar) != d.base[tCalendar] {
		t.Fatal("fresh worlds do not share the base tables")
	}
	base13 := d.base[tCalendar].Row(0) // event 00000013
	out, err := a.call("calendar_update_event", memberList{{"event_id", vStr("00000013")}, {"field", vStr("event_name")}, {"new_value", vStr("Changed")}}.members())
	if err != nil || out.Str != "Event updated successfully." {
		t.Fatalf("update: %v %v", out, err)
	}
	if a.get(tCalendar) == d.base[tCalendar] {
		t.Error("the written table is still the base table")
	}
	if b.get(tCalendar) != d.base[tCalendar] || a.get(tEmails) != d.base[tEmails] {
		t.Error("unwritten tables were copied")
	}
	if base13[cName].Str != "sync up" || d.base[tCalendar].At(0, cName).Str != "sync up" {
		t.Errorf("the base row changed: %v", d.base[tCalendar].Row(0))
	}
	if a.get(tCalendar).At(0, cName).Str != "Changed" {
		t.Error("the world does not see its write")
	}
	if &a.get(tCalendar).Row(1)[0] != &d.base[tCalendar].Row(1)[0] {
		t.Error("an unchanged row was copied")
	}
}

type memberKV struct {
	k string
	v value
}

type memberList []memberKV

func (l memberList) members() []framework.Member {
	out := make([]framework.Member, len(l))
	for i, m := range l {
		out[i] = framework.Member{Key: m.k, Value: m.v}
	}
	return out
}

// A call that finds no world yet but reads the mark after a parallel call of
// the same rollout kept its world (and marked it changed) runs on that world:
// it never answers "Session not initialized" (found by the soak: one send in
// a few hundred rollouts of six parallel sends was refused and lost).
func TestParallelFirstWritesNeverAnswerNotSeeded(t *testing.T) {
	t.Parallel()
	ts, _, _ := lifetimeServer(t, nil)
	const rounds, n = 300, 12
	for r := range rounds {
		ro := seed(t, ts)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				if st, body := send(ro, fmt.Sprintf("round%d-%d", r, i)); st != 200 {
					t.Errorf("round %d send %d: %d %s", r, i, st, body)
				}
			})
		}
		wg.Wait()
		res := ro.Post("/email_search_emails", fmt.Sprintf(`{"query":"round%d-","page_size":100}`, r))
		if got := strings.Count(string(res.Body), fmt.Sprintf(`"subject":"round%d-`, r)); got != n {
			t.Fatalf("round %d: %d of %d emails kept: %s", r, got, n, res.Body)
		}
	}
}
