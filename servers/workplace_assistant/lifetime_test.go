package workplace

import (
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

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
	s.DataDir = filepath.Join(dataDir(t), "csv_data")
	s.ToolsFile = filepath.Join(dataDir(t), "tools.json")
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

func TestIdleWorldsExpire(t *testing.T) {
	t.Parallel()
	ts, s, clock := lifetimeServer(t, func(s *Workplace) { s.WorldMaxIdle = time.Hour })
	a, b := seed(t, ts), seed(t, ts)
	clock.advance(40 * time.Minute)
	if st, _ := search(a); st != 200 { // a used: its idle time restarts
		t.Fatalf("a after 40m: %d", st)
	}
	clock.advance(40 * time.Minute)
	if st, body := search(b); st != 400 || body != notSeeded {
		t.Errorf("b idle 80m: %d %s, want 400", st, body)
	}
	if st, _ := search(a); st != 200 {
		t.Errorf("a idle 40m: %d, want 200", st)
	}
	if n := s.LiveWorlds(); n != 1 {
		t.Errorf("%d live worlds, want 1", n)
	}
}

func TestLeastRecentlyUsedWorldsAreDropped(t *testing.T) {
	t.Parallel()
	ts, s, _ := lifetimeServer(t, func(s *Workplace) { s.MaxLiveWorlds = 2 })
	a, b := seed(t, ts), seed(t, ts)
	search(a) // b is now the least recently used
	c := seed(t, ts)
	if st, _ := search(b); st != 400 {
		t.Errorf("b: %d, want 400 (dropped)", st)
	}
	for name, ro := range map[string]*servertest.Rollout{"a": a, "c": c} {
		if st, _ := search(ro); st != 200 {
			t.Errorf("%s: %d, want 200", name, st)
		}
	}
	if n := s.LiveWorlds(); n != 2 {
		t.Errorf("%d live worlds, want 2", n)
	}
	b.Post("/seed_session", `{}`) // re-seeding brings it back
	if st, _ := search(b); st != 200 {
		t.Errorf("b re-seeded: %d", st)
	}
}

const minimalVerify = `{"responses_create_params":{"input":"x"},"response":{"id":"r","created_at":0,"model":"m","object":"response","output":[],"parallel_tool_calls":false,"tool_choice":"auto","tools":[]},"ground_truth":[],"id":0,"category":"c","environment_name":"workplace_assistant"}`

func TestVerifyReleasesTheWorld(t *testing.T) {
	t.Parallel()
	for _, keep := range []bool{false, true} {
		ts, s, _ := lifetimeServer(t, func(s *Workplace) { s.KeepWorldAfterVerify = keep })
		ro := seed(t, ts)
		if res := ro.Post("/verify", minimalVerify); res.Status != 200 {
			t.Fatalf("verify: %d %s", res.Status, res.Body)
		}
		st, _ := search(ro)
		if keep && st != 200 || !keep && st != 400 {
			t.Errorf("keep_world_after_verify=%v: call after verify gave %d", keep, st)
		}
		if want := map[bool]int{false: 0, true: 1}[keep]; s.LiveWorlds() != want {
			t.Errorf("keep_world_after_verify=%v: %d live worlds, want %d", keep, s.LiveWorlds(), want)
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
	base13 := d.base[tCalendar].rows[0] // event 00000013
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
	if base13[cName].Str != "sync up" || d.base[tCalendar].rows[0][cName].Str != "sync up" {
		t.Errorf("the base row changed: %v", d.base[tCalendar].rows[0])
	}
	if a.get(tCalendar).rows[0][cName].Str != "Changed" {
		t.Error("the world does not see its write")
	}
	if &a.get(tCalendar).rows[1][0] != &d.base[tCalendar].rows[1][0] {
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
