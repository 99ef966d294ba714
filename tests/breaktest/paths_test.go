package breaktest

import (
	"strings"
	"testing"

	"github.com/gymkit/gymkit/server/servertest"
)

// TestPathPercentEncoding: uvicorn percent-decodes the request target before
// Starlette routes it (scope["path"] is decoded), so /%76erify is /verify and
// /%6Binds is /kinds, while /any%2Ftool is /any/tool, which no route matches.
// gymkit's chi router matches on the raw (still encoded) path: escaped spellings
// of typed and default routes miss them, and with a Dispatch catch-all they
// reach the dispatcher, which receives the unescaped name: the reserved
// "verify", a typed tool's name, or a name with "/" in it.
func TestPathPercentEncoding(t *testing.T) {
	plain := servertest.New(t, &breakEnv{}, servertest.Options{})
	disp := servertest.New(t, &breakEnv{dispatch: true}, servertest.Options{})
	vb := verifyBody("")
	cases := []struct {
		ts         *servertest.Server
		name, path string
		body       string
		status     int
		bodyHas    string // substring the Python answer would contain
	}{
		{plain, "plain", "/%76erify", vb, 200, `"reward":1.0`},
		{plain, "plain", "/%6Binds", `{}`, 200, `"def":7`},
		{plain, "plain", "/seed%5Fsession", `{}`, 200, `{}`},
		{disp, "dispatch", "/%76erify", vb, 200, `"reward":1.0`},
		{disp, "dispatch", "/%6Binds", `{}`, 200, `"def":7`},
		{disp, "dispatch", "/any%2Ftool", `{}`, 404, `{"detail":"Not Found"}`},
	}
	for _, c := range cases {
		res := c.ts.Rollout().Post(c.path, c.body)
		if res.Status != c.status || !strings.Contains(string(res.Body), c.bodyHas) {
			t.Errorf("%s POST %s: %d %s; want %d with %s (Starlette routes the decoded path)", c.name, c.path, res.Status, trunc(res.Body), c.status, c.bodyHas)
		}
		if n := len(res.SetCookies()); n != 1 {
			t.Errorf("%s POST %s: %d Set-Cookie", c.name, c.path, n)
		}
	}
}

// TestPathRolloutPrefixEncodedSlash: /ng-rollout/ab%2Fc/anytool is, decoded,
// /ng-rollout/ab/c/anytool, which NeMo's middleware rewrites to /c/anytool (a
// 404). gymkit cuts Path and RawPath at different slashes (Path "/c/anytool",
// RawPath "/anytool") and the dispatcher is called with tool "anytool".
func TestPathRolloutPrefixEncodedSlash(t *testing.T) {
	ts := servertest.New(t, &breakEnv{dispatch: true}, servertest.Options{})
	res := ts.Rollout().Post("/ng-rollout/ab%2Fc/anytool", `{}`)
	want(t, "POST /ng-rollout/ab%2Fc/anytool", res.Status, res.Header, res.Body, 404, `{"detail":"Not Found"}`)
}

// TestPathsHoldUp: the prefix, slash redirects and double slashes as FastAPI.
func TestPathsHoldUp(t *testing.T) {
	ts := servertest.New(t, &breakEnv{dispatch: true}, servertest.Options{})
	vb := verifyBody("")
	for _, c := range []struct {
		path, body string
		status     int
		exact      string
	}{
		{"//verify", vb, 404, `{"detail":"Not Found"}`},
		{"//anytool", `{}`, 404, `{"detail":"Not Found"}`},
		{"/ng-rollout/x/ng-rollout/y/verify", vb, 404, `{"detail":"Not Found"}`},
		{"/ng-rollout/run-1.a_b/anytool", `{}`, 200, `{"args":{},"tool":"anytool"}`},
		{"/ng-rollout/abc/rollout_id", `{}`, 200, `"abc"`},
		{"/ng-rollout/abc/verify", vb, 200, ""},
		{"/ng-rollout/_x/verify", vb, 404, `{"detail":"Not Found"}`},
		{"/ng-rollout/a%20b/anytool", `{}`, 404, `{"detail":"Not Found"}`},
		{"/verify/", vb, 307, ""},
		{"/kinds/?q=1", `{}`, 307, ""},
		{"/a/b", `{}`, 404, `{"detail":"Not Found"}`},
	} {
		res := ts.Rollout().Post(c.path, c.body)
		want(t, "POST "+c.path, res.Status, res.Header, res.Body, c.status, c.exact)
	}
}

// TestMethodsStarlette: Starlette answers a path that only a route for another
// method matches with 405 and that route's methods in Allow (the first such
// route), 404 for a path no route matches whatever the method, and 307 when
// the path matches with its trailing slash flipped, even for another method
// (redirect_slashes accepts a partial match).
func TestMethodsStarlette(t *testing.T) {
	plain := servertest.New(t, &breakEnv{}, servertest.Options{})
	disp := servertest.New(t, &breakEnv{dispatch: true}, servertest.Options{})
	for _, c := range []struct {
		ts           *servertest.Server
		method, path string
		status       int
		allow        string
	}{
		{plain, "GET", "/kinds", 405, "POST"},
		{plain, "PUT", "/kinds", 405, "POST"},
		{plain, "OPTIONS", "/verify", 405, "POST"},
		{plain, "HEAD", "/", 405, "GET"},
		{plain, "DELETE", "/", 405, "GET"},
		{plain, "GET", "/nope", 404, ""},
		{plain, "GET", "/kinds/", 307, ""},
		{plain, "PUT", "/verify/", 307, ""},
		{disp, "GET", "/nope", 405, "POST"},
		{disp, "HEAD", "/reverify_mode", 405, "GET"},
		{disp, "PUT", "/reverify_mode", 405, "GET"},
	} {
		res := rawDo(t, c.ts, rawReq(c.method, c.path, jsonCT, []byte(`{}`)))
		if res.Status != c.status || res.Header.Get("Allow") != c.allow {
			t.Errorf("%s %s: %d Allow %q, want %d Allow %q", c.method, c.path, res.Status, res.Header.Get("Allow"), c.status, c.allow)
		}
		if n := len(res.cookies()); n != 1 {
			t.Errorf("%s %s: %d Set-Cookie", c.method, c.path, n)
		}
	}
}
