package workplace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/session"
)

// sessionWorkplace is a provisioned workplace_assistant with world_state:
// session on a memory store, and the context of one seeded rollout.
func sessionWorkplace(t *testing.T) (*Workplace, context.Context, string) {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	data := filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "data", "nemo-gym", "workplace_assistant")
	s := New()
	s.DataDir, s.ToolsFile = config.Path(filepath.Join(data, "csv_data")), config.Path(filepath.Join(data, "tools.json"))
	s.WorldState = WorldStateSession
	if err := s.Provision(context.Background()); err != nil {
		t.Fatal(err)
	}
	m := session.MustNewManager(session.Options{CookieName: "session"})
	id := session.NewID()
	ctx := session.WithID(context.Background(), m, id)
	if err := s.seedSession(ctx, id); err != nil {
		t.Fatal(err)
	}
	return s, ctx, id
}

func sendOn(s *Workplace, ctx context.Context, id, raw string) (any, error) {
	body, err := framework.ParseJSON([]byte(raw))
	if err != nil {
		return nil, err
	}
	return s.dispatchSession(ctx, id, "email_send_email", json.RawMessage(raw), nonNull(body))
}

// TestChangeLogBounds: a rollout cannot grow its change log past its
// bounds (calls, bytes): the call past either is refused with a 413 naming
// the limit, writes nothing, and the rollout's reads go on; another
// rollout is not affected. Before the bounds a rollout's log grew with
// every body it sent (4 MB each), and each later call carried all of it.
func TestChangeLogBounds(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name          string
		calls, bytes  int
		body          func(i int) string
		okBeforeLimit int
	}{
		{"calls", 3, DefaultMaxLogBytes, func(i int) string {
			return fmt.Sprintf(`{"recipient":"a@b.co","subject":"bound-%d","body":"b"}`, i)
		}, 3},
		{"bytes", DefaultMaxLogCalls, 1200, func(i int) string {
			return fmt.Sprintf(`{"recipient":"a@b.co","subject":"bound-%d","body":"%s"}`, i, strings.Repeat("x", 400))
		}, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, ctx, id := sessionWorkplace(t)
			s.cache.maxLogCalls, s.cache.maxLogBytes = tt.calls, tt.bytes
			for i := range tt.okBeforeLimit {
				if _, err := sendOn(s, ctx, id, tt.body(i)); err != nil {
					t.Fatalf("send %d: %v", i, err)
				}
			}
			_, err := sendOn(s, ctx, id, tt.body(99))
			var fe *framework.Error
			if !errors.As(err, &fe) || fe.Status != 413 || !strings.Contains(err.Error(), "change log would hold") {
				t.Fatalf("the send past the bound: %v, want a 413 naming the limit", err)
			}
			l, _, err := session.Get[changeLog](ctx, changesKey)
			if err != nil || len(l.Calls) != tt.okBeforeLimit {
				t.Fatalf("the log has %d calls (%v), want %d: the refused call wrote nothing", len(l.Calls), err, tt.okBeforeLimit)
			}
			out, err := s.dispatchSession(ctx, id, "email_search_emails", json.RawMessage(`{"query":"bound-"}`),
				nonNull(framework.Value{Kind: framework.KindObject, Members: []framework.Member{{Key: "query", Value: framework.Value{Kind: framework.KindString, Str: "bound-"}}}}))
			if b, _ := json.Marshal(out); err != nil || !strings.Contains(string(b), fmt.Sprintf(`"total_emails":%d`, tt.okBeforeLimit)) {
				t.Errorf("a read after the refusal: %s %v", b, err)
			}
		})
	}
}

// TestChangeLogOverTheBoundsIsNotReplayed: a log already past the bounds
// in the store (written by hand, or by a server with larger bounds) is
// refused with a clear error instead of being replayed: 20,000 sends took
// 97 s of a replica's CPU to rebuild before.
func TestChangeLogOverTheBoundsIsNotReplayed(t *testing.T) {
	t.Parallel()
	s, ctx, id := sessionWorkplace(t)
	if err := session.Update(ctx, changesKey, func(l *changeLog) error {
		for i := range DefaultMaxLogCalls + 1 {
			l.Calls = append(l.Calls, changeCall{Tool: "email_send_email", Args: json.RawMessage(fmt.Sprintf(`{"recipient":"a@b.co","subject":"s%d","body":"b"}`, i))})
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	_, err := sendOn(s, ctx, id, `{"recipient":"a@b.co","subject":"one more","body":"b"}`)
	if err == nil || !strings.Contains(err.Error(), "not replayed") || !strings.Contains(err.Error(), "1001 calls") {
		t.Fatalf("a call on a log of 1001 calls: %v, want the refusal", err)
	}
	if n, _ := s.cache.stats(); n != 0 {
		t.Errorf("%d worlds cached: the log was replayed", n)
	}
}

// BenchmarkReplay is the cost of rebuilding a world from a log of sends
// (what a replica does when the rollout's world is not in its cache), for
// the log bound: the whole cost of the largest log a rollout may write.
func BenchmarkReplay(b *testing.B) {
	_, file, _, _ := runtime.Caller(0)
	d, err := loadDataset(filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "data", "nemo-gym", "workplace_assistant", "csv_data"))
	if err != nil {
		b.Skip(err)
	}
	for _, n := range []int{100, DefaultMaxLogCalls} {
		log := make([]changeCall, n)
		for i := range log {
			log[i] = changeCall{"email_send_email", json.RawMessage(fmt.Sprintf(`{"recipient":"a@b.co","subject":"s%d","body":"b"}`, i))}
		}
		b.Run(fmt.Sprintf("calls=%d", n), func(b *testing.B) {
			for b.Loop() {
				replayOn(d.newWorld(), log)
			}
		})
	}
}
