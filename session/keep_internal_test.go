package session

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/alexedwards/scs/v2/memstore"
)

// TestKeepConfirmsANewSession: a session whose seed only calls Keep (no
// Update) still names the same id after the provisional expiry has passed;
// without Keep it does not.
func TestKeepConfirmsANewSession(t *testing.T) {
	t.Parallel()
	for _, keep := range []bool{true, false} {
		// The scs memstore checks expiry against the real time: start there.
		c := &clock{t: time.Now()}
		m := NewManager(Options{CookieName: "k", Lifetime: 100 * time.Hour, Store: memstore.NewWithCleanupInterval(0)})
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
		c.Add(3 * time.Hour) // past the provisional expiry (1 h)
		req := httptest.NewRequest("POST", "/tool", nil)
		req.AddCookie(&http.Cookie{Name: "k", Value: cs[0].Value})
		h.ServeHTTP(httptest.NewRecorder(), req)
		if same := ids[0] == ids[1]; same != keep {
			t.Errorf("keep=%v: ids %v, same session = %v", keep, ids, same)
		}
	}
	if err := Keep(context.Background()); !errors.Is(err, ErrNoSession) {
		t.Errorf("Keep without a session: %v, want ErrNoSession", err)
	}
}
