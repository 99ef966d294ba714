package session

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestKeepStoresNothing: a session whose seed calls Keep, or does not, names
// the same id when its cookie comes back hours later (the cookie carries
// it), and neither stores anything.
func TestKeepStoresNothing(t *testing.T) {
	t.Parallel()
	for _, keep := range []bool{true, false} {
		c := &clock{t: time.Now()}
		state := NewMemoryStore()
		m := MustNewManager(Options{CookieName: "k", Lifetime: 100 * time.Hour, IdleTimeout: 100 * time.Hour, State: state})
		m.now = c.Now
		var ids []string
		h := m.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/seed" && keep {
				if err := Keep(r.Context()); err != nil {
					t.Error(err)
				}
			}
			ids = append(ids, ID(r.Context()))
		}))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("POST", "/seed", nil))
		cs := rec.Result().Cookies()
		c.Add(3 * time.Hour)
		req := httptest.NewRequest("POST", "/tool", nil)
		req.AddCookie(&http.Cookie{Name: "k", Value: cs[0].Value})
		h.ServeHTTP(httptest.NewRecorder(), req)
		if ids[0] != ids[1] {
			t.Errorf("keep=%v: ids %v, want one session", keep, ids)
		}
		if n := state.Len(); n != 0 {
			t.Errorf("keep=%v: %d sessions stored", keep, n)
		}
	}
	if err := Keep(context.Background()); !errors.Is(err, ErrNoSession) {
		t.Errorf("Keep without a session: %v, want ErrNoSession", err)
	}
}
