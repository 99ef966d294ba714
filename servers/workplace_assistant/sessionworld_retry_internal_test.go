package workplace

import (
	"context"
	"encoding/json"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/session"
)

// lostRaceStore is a session.StateStore whose first Update of the change
// log loses a compare-and-set, as the Redis store's does when another
// replica commits first: fn runs on the value read, its result is thrown
// away, another replica's call is committed, and fn runs again on the
// newer log (session.StateStore allows that: fn may be called more than
// once).
type lostRaceStore struct {
	session.StateStore
	mu    sync.Mutex
	raced bool
	other changeCall // what the other replica commits
}

func (s *lostRaceStore) Update(ctx context.Context, id, key string, fn func([]byte, bool) ([]byte, error)) error {
	s.mu.Lock()
	race := !s.raced && key == changesKey
	if race {
		old, ok, err := s.StateStore.Get(ctx, id, key)
		if err != nil {
			s.mu.Unlock()
			return err
		}
		var l changeLog
		if ok && json.Unmarshal(old, &l) == nil && l.Gen != "" {
			s.raced = true
			if _, err := fn(old, ok); err != nil { // the attempt that loses
				s.mu.Unlock()
				return err
			}
			l.Calls = append(l.Calls, s.other)
			b, _ := json.Marshal(l)
			if err := s.StateStore.Update(ctx, id, key, func([]byte, bool) ([]byte, error) { return b, nil }); err != nil {
				s.mu.Unlock()
				return err
			}
		}
	}
	s.mu.Unlock()
	return s.StateStore.Update(ctx, id, key, fn)
}

// TestRetriedCommitCachesTheWorldItCommitted: when the store retries a
// call's commit because another replica appended to the log first, the
// world this replica caches under the new version holds both calls (the
// regression of a clean CI run where B found 46 of 49 emails: a retry
// reused the first attempt's version and cached a world without the other
// replica's email).
func TestRetriedCommitCachesTheWorldItCommitted(t *testing.T) {
	t.Parallel()
	_, file, _, _ := runtime.Caller(0)
	data := filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "data", "nemo-gym", "workplace_assistant")
	s := New()
	s.DataDir, s.ToolsFile = config.Path(filepath.Join(data, "csv_data")), config.Path(filepath.Join(data, "tools.json"))
	s.WorldState = WorldStateSession
	if err := s.Provision(context.Background()); err != nil {
		t.Fatal(err)
	}
	store := &lostRaceStore{
		StateStore: session.NewMemoryStore(),
		other:      changeCall{Tool: "email_send_email", Args: json.RawMessage(`{"recipient":"b@replica.co","subject":"from-B","body":"b"}`)},
	}
	m := session.MustNewManager(session.Options{CookieName: "session", State: store})
	id := session.NewID()
	ctx := session.WithID(context.Background(), m, id)
	if err := s.seedSession(ctx, id); err != nil {
		t.Fatal(err)
	}
	send := func(raw string) {
		t.Helper()
		body, err := framework.ParseJSON([]byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.dispatchSession(ctx, id, "email_send_email", json.RawMessage(raw), nonNull(body)); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"recipient":"a@replica.co","subject":"from-A","body":"a"}`)

	l, _, err := session.Get[changeLog](ctx, changesKey)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Calls) != 2 {
		t.Fatalf("the log has %d calls, want 2 (B's and A's)", len(l.Calls))
	}
	whole := s.data.newWorld()
	replayOn(whole, l.Calls)
	cached := s.worldAt(id, &l)
	if eq, err := sameTables(cached, whole); err != nil || !eq {
		t.Errorf("the cached world of version %d is not the log replayed (eq=%v err=%v): %d emails, want %d",
			len(l.Calls), eq, err, cached.get(tEmails).Len(), whole.get(tEmails).Len())
	}
}
