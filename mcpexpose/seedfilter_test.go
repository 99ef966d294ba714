package mcpexpose_test

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"

	"github.com/gymkit/gymkit/framework"
)

// bytesFilter is a Store whose AllowedToolsForSession records the bytes it
// is given.
type bytesFilter struct {
	Store
	mu  sync.Mutex
	got []json.RawMessage
}

func (s *bytesFilter) AllowedToolsForSession(ctx context.Context, seed json.RawMessage) ([]string, error) {
	s.mu.Lock()
	s.got = append(s.got, slices.Clone(seed))
	s.mu.Unlock()
	return s.Store.AllowedToolsForSession(ctx, seed)
}

// bothFilters has both hooks: the door must call AllowedToolsForSeed only.
type bothFilters struct {
	bytesFilter
}

var _ framework.SeedToolFilter = (*bothFilters)(nil)

func (s *bothFilters) AllowedToolsForSeed(_ context.Context, seed *framework.SeedBody) ([]string, error) {
	v, ok := seed.Get("only")
	if !ok || v.Kind != framework.KindString {
		return nil, nil
	}
	return []string{v.Str}, nil
}

// TestSeedFilterHooks: a SessionToolFilter gets the seed body's bytes as
// sent (whitespace, key order and duplicate keys kept; {} for a body that
// is not an object), and a server that is also a SeedToolFilter has only
// AllowedToolsForSeed called, whose answer is the token's allow-list.
func TestSeedFilterHooks(t *testing.T) {
	t.Parallel()
	t.Run("SessionToolFilter: the bytes as sent", func(t *testing.T) {
		t.Parallel()
		srv := &bytesFilter{}
		h := newHost(t, srv)
		body := `{ "b": 1,  "allowed_tools": ["append"], "b": 2 }`
		ro := h.seed(body)
		if got := h.listNames(ro.token); !slices.Equal(got, []string{"append"}) {
			t.Errorf("tools/list: %v, want [append]", got)
		}
		h.seed(`{}`)
		srv.mu.Lock()
		defer srv.mu.Unlock()
		if len(srv.got) != 2 || string(srv.got[0]) != body || string(srv.got[1]) != `{}` {
			t.Errorf("AllowedToolsForSession got %q, want [%q {}]", srv.got, body)
		}
	})
	t.Run("both: AllowedToolsForSeed only", func(t *testing.T) {
		t.Parallel()
		srv := &bothFilters{}
		h := newHost(t, srv)
		ro := h.seed(`{"allowed_tools": [], "only": "append"}`)
		if got := h.listNames(ro.token); !slices.Equal(got, []string{"append"}) {
			t.Errorf("tools/list: %v, want [append] (AllowedToolsForSeed's answer)", got)
		}
		srv.mu.Lock()
		defer srv.mu.Unlock()
		if len(srv.got) != 0 {
			t.Errorf("AllowedToolsForSession was called too: %q", srv.got)
		}
	})
}
