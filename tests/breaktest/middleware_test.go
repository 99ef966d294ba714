package breaktest

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/server/servertest"
)

type mwEnv struct{ framework.Base }

func (s *mwEnv) Routes(r *framework.Router) {
	r.Use(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			switch req.URL.Path {
			case "/mw_cookie":
				http.SetCookie(w, &http.Cookie{Name: "test___test", Value: "evil"})
				http.SetCookie(w, &http.Cookie{Name: "other", Value: "1"})
				w.Header().Add("Set-Cookie", "test___test=evil2")
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(200)
				_, _ = w.Write([]byte(`{}`))
				return
			case "/mw_panic_after_write":
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(200)
				_, _ = w.Write([]byte(`{"partial":`))
				panic("after write")
			case "/mw_early_hints":
				w.Header().Set("Link", "</x>; rel=preload")
				w.WriteHeader(103)
			case "/mw_nothing":
				return
			}
			next.ServeHTTP(w, req)
		})
	})
	framework.Post(r, "/mw_early_hints", func(context.Context, framework.NoBody) (string, error) { return "ok", nil })
	framework.Verify(r, func(context.Context, framework.VerifyRequest) (framework.VerifyResponse, error) {
		return framework.VerifyResponse{}, nil
	})
}

// TestMiddlewareCookies: whatever a Router.Use middleware does with headers,
// the response has exactly one Set-Cookie for the session and keeps the
// middleware's other cookies.
func TestMiddlewareCookies(t *testing.T) {
	ts := servertest.New(t, &mwEnv{}, servertest.Options{})
	for _, p := range []string{"/mw_cookie", "/mw_early_hints", "/mw_nothing"} {
		res := rawDo(t, ts, rawReq("POST", p, jsonCT, []byte(`{}`)))
		n := 0
		for _, c := range res.cookies() {
			if strings.HasPrefix(c, "test___test=") {
				n++
				if strings.Contains(c, "evil") {
					t.Errorf("%s: middleware's forged session cookie kept: %q", p, c)
				}
			}
		}
		t.Logf("%s -> %d %q cookies %q", p, res.Status, res.Body, res.cookies())
		if n != 1 {
			t.Errorf("%s: %d session Set-Cookie headers", p, n)
		}
	}
}

// TestMiddlewarePanicAfterWrite: a Router.Use middleware writes 200 and part
// of a body, then panics. The framework's recoverer writes its 500 JSON string
// into the already-started 200 response, so the client reads a complete,
// well-framed 200 whose body is the concatenation {"partial":"panic: after
// write". Expected: abort the response (panic(http.ErrAbortHandler), as
// net/http does for a started response), so the client sees a broken
// connection rather than a corrupt success; Starlette likewise cannot send a
// 500 once the response has started.
func TestMiddlewarePanicAfterWrite(t *testing.T) {
	ts := servertest.New(t, &mwEnv{}, servertest.Options{})
	c, err := net.Dial("tcp", strings.TrimPrefix(ts.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	_, _ = io.WriteString(c, rawReq("POST", "/mw_panic_after_write", jsonCT, []byte(`{}`)))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return // aborted: fine
	}
	b, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode == 200 {
		t.Errorf("got a complete 200 with body %q", b)
	}
}
