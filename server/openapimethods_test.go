package server_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/server/servertest"
	examplemcpweather "github.com/gymkit/gymkit/servers/example_mcp_weather"
)

// TestOpenAPIRoutesOtherMethods: FastAPI registers /openapi.json and /docs
// as Starlette Routes of an endpoint function (FastAPI.setup: add_route), so
// they answer GET and HEAD and every other method gets Starlette's 405
// {"detail":"Method Not Allowed"} with Allow: GET, HEAD (starlette
// routing.py › Route.__init__ adds HEAD to GET; Route.handle raises 405), not
// 404. A POST reaches a tool of that path, or a dispatcher's POST /{tool},
// since the Router tries the later full match before a partial one. A path
// with a trailing slash is redirected (307, Router.redirect_slashes;
// spec/python-compat.md "A path that matches only with its trailing slash
// flipped").
func TestOpenAPIRoutesOtherMethods(t *testing.T) {
	t.Parallel()
	weather := servertest.New(t, new(examplemcpweather.Weather), servertest.Options{ServerType: "openapi_test"})
	docs := servertest.New(t, new(docsTool), servertest.Options{ServerType: "openapi_test"})
	disp := servertest.New(t, new(dispatcher), servertest.Options{ServerType: "openapi_test"})
	const notAllowed = `{"detail":"Method Not Allowed"}`
	for _, c := range []struct {
		name         string
		ts           *servertest.Server
		method, path string
		body         string
		status       int
		wantBody     string
		allow        string
		location     string
	}{
		{"weather POST openapi", weather, "POST", "/openapi.json", `{}`, 405, notAllowed, "GET, HEAD", ""},
		{"weather PUT openapi", weather, "PUT", "/openapi.json", `{}`, 405, notAllowed, "GET, HEAD", ""},
		{"weather DELETE docs", weather, "DELETE", "/docs", "", 405, notAllowed, "GET, HEAD", ""},
		{"weather POST docs", weather, "POST", "/docs", `{}`, 405, notAllowed, "GET, HEAD", ""},
		{"weather POST docs query", weather, "POST", "/docs?x=1", `{}`, 405, notAllowed, "GET, HEAD", ""},
		{"weather GET docs/", weather, "GET", "/docs/", "", 307, "", "", "/docs"},
		{"weather GET openapi/", weather, "GET", "/openapi.json/?a=b", "", 307, "", "", "/openapi.json?a=b"},
		{"docs tool POST docs", docs, "POST", "/docs", `{"topic":"x"}`, 200, `{"text":"about x"}`, "", ""},
		{"docs tool PUT docs", docs, "PUT", "/docs", `{}`, 405, notAllowed, "GET, HEAD", ""},
		{"docs tool POST openapi", docs, "POST", "/openapi.json", `{}`, 405, notAllowed, "GET, HEAD", ""},
		{"dispatcher POST docs", disp, "POST", "/docs", `{}`, 200, `{"tool":"docs"}`, "", ""},
		{"dispatcher POST openapi", disp, "POST", "/openapi.json", `{}`, 200, `{"tool":"openapi.json"}`, "", ""},
		{"dispatcher PUT openapi", disp, "PUT", "/openapi.json", `{}`, 405, notAllowed, "GET, HEAD", ""},
	} {
		var body any
		hdr := map[string]string{}
		if c.body != "" {
			body = c.body
			hdr["Content-Type"] = "application/json"
		}
		res := c.ts.Rollout().Do(c.method, c.path, hdr, body)
		if res.Status != c.status {
			t.Errorf("%s: %s %s: status %d, want %d; body %s", c.name, c.method, c.path, res.Status, c.status, res.Body)
			continue
		}
		if c.wantBody != "" && string(res.Body) != c.wantBody {
			t.Errorf("%s: body %s, want %s", c.name, res.Body, c.wantBody)
		}
		if got := res.Header.Get("Allow"); got != c.allow {
			t.Errorf("%s: Allow %q, want %q", c.name, got, c.allow)
		}
		if c.location != "" {
			if got := res.Header.Get("Location"); !strings.HasSuffix(got, c.location) || !strings.HasPrefix(got, "http://") {
				t.Errorf("%s: Location %q, want http://<host>%s", c.name, got, c.location)
			}
		}
	}
}

var _ framework.Server = (*docsTool)(nil)

// TestOpenAPIRoutesContentLength: GET and HEAD of /openapi.json and /docs
// carry the body's Content-Length (Starlette's Response sets it, HEAD
// included), not a chunked body of unknown length.
func TestOpenAPIRoutesContentLength(t *testing.T) {
	t.Parallel()
	ts := servertest.New(t, new(examplemcpweather.Weather), servertest.Options{ServerType: "openapi_test"})
	for _, p := range []string{"/openapi.json", "/docs"} {
		get := ts.Rollout().Do("GET", p, nil, nil)
		head := ts.Rollout().Do("HEAD", p, nil, nil)
		want := strconv.Itoa(len(get.Body))
		if got := get.Header.Get("Content-Length"); got != want {
			t.Errorf("GET %s: Content-Length %q, want %s", p, got, want)
		}
		if got := head.Header.Get("Content-Length"); got != want || len(head.Body) != 0 {
			t.Errorf("HEAD %s: Content-Length %q (body %d bytes), want %s and no body", p, got, len(head.Body), want)
		}
	}
}
