package session_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gymkit/gymkit/session"
)

// BenchmarkMiddleware measures what Middleware adds to a request, without
// the network: compare each case with "bare". Each case has its own Manager
// (and memstore), so that the sessions one case stores do not slow the next.
func BenchmarkMiddleware(b *testing.B) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "{}") })
	usesID := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = session.ID(r.Context())
		io.WriteString(w, "{}")
	})
	updates := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = session.Update(r.Context(), "n", func(n *int) error { *n++; return nil })
		io.WriteString(w, "{}")
	})

	cases := []struct {
		name    string
		h       http.Handler
		cookie  bool   // send a known session's cookie
		others  string // other cookies sent before it
		wrapped bool   // h is wrapped in the Manager's Middleware
	}{
		{name: "bare", h: ok},
		{name: "new session unused", h: ok, wrapped: true},
		{name: "new session used", h: usesID, wrapped: true},
		{name: "new session updated", h: updates, wrapped: true},
		{name: "known session", h: usesID, cookie: true, wrapped: true},
		{name: "known session among 4 cookies", h: usesID, cookie: true, wrapped: true,
			others: "a___a=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx; b___b=yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy; c___c=zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			h := c.h
			req := httptest.NewRequest(http.MethodPost, "/tool", nil)
			if c.wrapped {
				m := newManager(b, session.Options{})
				h = m.Middleware(c.h)
				if c.cookie {
					rec := httptest.NewRecorder()
					m.Middleware(usesID).ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", nil))
					if c.others != "" {
						req.Header.Set("Cookie", c.others)
					}
					req.AddCookie(rec.Result().Cookies()[0])
				}
			}
			b.ReportAllocs()
			for b.Loop() {
				w := &discardWriter{h: http.Header{}}
				h.ServeHTTP(w, req)
			}
		})
	}
}

// discardWriter is a minimal ResponseWriter, cheaper than a recorder.
type discardWriter struct {
	h    http.Header
	code int
}

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (w *discardWriter) WriteHeader(code int)        { w.code = code }

// BenchmarkHTTPRoundTrip puts Middleware's cost next to one real local HTTP
// call with a session cookie and a state update.
func BenchmarkHTTPRoundTrip(b *testing.B) {
	for _, withSession := range []bool{false, true} {
		b.Run(fmt.Sprintf("session=%v", withSession), func(b *testing.B) {
			var h http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "{}") })
			if withSession {
				h = newManager(b, session.Options{}).Middleware(counterHandler)
			}
			ts := httptest.NewServer(h)
			defer ts.Close()
			c := call(b, ts, "/").sessionCookies()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := tryCall(ts, "/", c...); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

type benchState struct {
	Count   int                `json:"count"`
	Name    string             `json:"name"`
	History []string           `json:"history"`
	Flags   map[string]bool    `json:"flags"`
	Scores  map[string]float64 `json:"scores"`
}

func newBenchState() benchState {
	return benchState{
		Name:    "workplace",
		History: []string{"search_emails", "send_email", "update_calendar", "get_customer"},
		Flags:   map[string]bool{"seeded": true, "verified": false},
		Scores:  map[string]float64{"a": 0.5, "b": 0.25},
	}
}

// BenchmarkUpdate measures session.Update on the memory store.
func BenchmarkUpdate(b *testing.B) {
	m := newManager(b, session.Options{})
	b.Run("int", func(b *testing.B) {
		ctx := session.WithID(context.Background(), m, session.NewID())
		b.ReportAllocs()
		for b.Loop() {
			if err := session.Update(ctx, "n", func(n *int) error { *n++; return nil }); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("struct", func(b *testing.B) {
		ctx := session.WithID(context.Background(), m, session.NewID())
		_ = session.Update(ctx, "s", func(s *benchState) error { *s = newBenchState(); return nil })
		b.ReportAllocs()
		for b.Loop() {
			if err := session.Update(ctx, "s", func(s *benchState) error { s.Count++; return nil }); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("int parallel one session", func(b *testing.B) {
		ctx := session.WithID(context.Background(), m, session.NewID())
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				_ = session.Update(ctx, "n", func(n *int) error { *n++; return nil })
			}
		})
	})
	b.Run("int parallel many sessions", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			ctx := session.WithID(context.Background(), m, session.NewID())
			for pb.Next() {
				_ = session.Update(ctx, "n", func(n *int) error { *n++; return nil })
			}
		})
	})
}

// BenchmarkGet measures session.Get on the memory store.
func BenchmarkGet(b *testing.B) {
	m := newManager(b, session.Options{})
	ctx := session.WithID(context.Background(), m, session.NewID())
	_ = session.Update(ctx, "n", func(n *int) error { *n = 42; return nil })
	_ = session.Update(ctx, "s", func(s *benchState) error { *s = newBenchState(); return nil })
	b.Run("int", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := session.Get[int](ctx, "n"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("struct", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := session.Get[benchState](ctx, "s"); err != nil {
				b.Fatal(err)
			}
		}
	})
}
