package authn

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestBearer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   []string
		tok  string
		want bool
	}{
		{[]string{"Bearer abc"}, "abc", true},
		{[]string{"bearer   abc "}, "abc", true},
		{[]string{"BEARER abc"}, "abc", true},
		{[]string{"Bearer"}, "", false},
		{[]string{"Bearer "}, "", false},
		{[]string{"Basic abc"}, "", false},
		{[]string{"Bearer a", "Bearer b"}, "", false},
		{nil, "", false},
	} {
		if tok, ok := bearer(tc.in); tok != tc.tok || ok != tc.want {
			t.Errorf("bearer(%q) = %q, %v", tc.in, tok, ok)
		}
	}
}

func TestParseKeys(t *testing.T) {
	t.Parallel()
	const h = "2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b" // sha256("secret")
	keys, err := parseKeys("# comment\n\n a : "+strings.ToUpper(h)+" \nb:"+h+"\n", "\n")
	if err != nil || len(keys) != 2 || keys[0].name != "a" || keys[1].name != "b" {
		t.Fatalf("parseKeys = %+v, %v", keys, err)
	}
	for _, bad := range []string{"a", ":" + h, "a:" + h[:60], "a:zz" + h[2:]} {
		if _, err := parseKeys(bad, "\n"); err == nil || strings.Contains(err.Error(), h[:10]) {
			t.Errorf("parseKeys(%q): %v", bad, err)
		}
	}
}

func TestMiddlewareNoPrincipal(t *testing.T) {
	t.Parallel()
	ran := false
	h := Middleware(Options{Realm: `a "q"`, Validators: []Validator{func(context.Context, string) (any, error) { return nil, nil }}},
		http.HandlerFunc(func(http.ResponseWriter, *http.Request) { ran = true }))
	w := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	r.Header.Set("Authorization", "Bearer x")
	h.ServeHTTP(w, r)
	if ran || w.Code != 401 || w.Body.String() != InvalidBody || !strings.HasPrefix(w.Header().Get("WWW-Authenticate"), `Bearer realm="a \"q\""`) {
		t.Errorf("a nil principal: ran %v, %d %s %v", ran, w.Code, w.Body, w.Header())
	}
}
