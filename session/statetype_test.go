package session_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/session"
)

type cartHidden struct {
	Items []string `json:"items"`
	total int
}

type inner struct{ secret string }

type cartNested struct {
	Lines map[string][]*inner `json:"lines"`
}

type cartOK struct {
	Items   []string  `json:"items"`
	skipped int       `json:"-"`  //nolint:unused // dropped knowingly
	At      time.Time `json:"at"` // unexported fields, but its own MarshalJSON
	embedded
}

type embedded struct {
	Note string `json:"note"`
}

// State types with unexported fields are refused by Get and Update, with
// the type, the field and the fix named, before anything is read or
// written; types that round-trip are stored.
func TestStateTypeUnexportedRefused(t *testing.T) {
	t.Parallel()
	m := session.MustNewManager(session.Options{CookieName: "c"})
	ctx := session.WithID(context.Background(), m, session.NewID())
	called := false
	err := session.Update(ctx, "cart", func(c *cartHidden) error { called = true; c.total = 3; return nil })
	if err == nil || called {
		t.Fatalf("Update of a state type with an unexported field: err %v, fn called %v", err, called)
	}
	for _, w := range []string{"cartHidden", "total", "unexported", "export it", `json:"-"`, "MarshalJSON"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not mention %q", err, w)
		}
	}
	if _, _, err := session.Get[cartHidden](ctx, "cart"); err == nil || !strings.Contains(err.Error(), "total") {
		t.Errorf("Get of the same type: %v", err)
	}
	if _, _, err := session.Get[cartNested](ctx, "cart"); err == nil || !strings.Contains(err.Error(), "field secret of session_test.inner") {
		t.Errorf("Get of a type with a nested unexported field: %v", err)
	}
	if err := session.Update(ctx, "cart", func(c *cartOK) error { c.Items, c.Note = []string{"a"}, "n"; return nil }); err != nil {
		t.Fatalf("Update of a type that round-trips: %v", err)
	}
	if c, ok, err := session.Get[cartOK](ctx, "cart"); err != nil || !ok || c.Note != "n" || len(c.Items) != 1 {
		t.Errorf("Get: %+v %v %v", c, ok, err)
	}
}

type seedRow struct {
	Question string `json:"question"`
	framework.Extra
}

// A struct embedding framework.Extra (a seed row keeping its unknown keys)
// is session state: its extra keys, decoded from a body (kept as text) or
// set by the handler, come back in order with their values, and an Extra
// set empty stays set.
func TestStateTypeWithExtra(t *testing.T) {
	t.Parallel()
	m := session.MustNewManager(session.Options{CookieName: "c"})
	ctx := session.WithID(context.Background(), m, session.NewID())
	row, err := framework.Decode[seedRow]([]byte(`{"question":"q","options":[1, 2.50, {"k": "a", "k": "b"}],"meta":{"n":null}}`))
	if err != nil {
		t.Fatal(err)
	}
	row.Set("added", framework.StringValue("x"))
	if err := session.Update(ctx, "row", func(r *seedRow) error { *r = row; return nil }); err != nil {
		t.Fatalf("Update: %v", err)
	}
	got, ok, err := session.Get[seedRow](ctx, "row")
	if err != nil || !ok {
		t.Fatalf("Get: %v %v", ok, err)
	}
	if got.Question != "q" || strings.Join(got.Keys(), ",") != "options,meta,added" {
		t.Fatalf("got %q %v", got.Question, got.Keys())
	}
	opts, _ := got.Get("options")
	if len(opts.Items) != 3 || opts.Items[1].Str != "2.5" {
		t.Errorf("options came back as %#v", opts)
	}
	if k, _ := opts.Items[2].Get("k"); k.Str != "b" {
		t.Errorf("options[2].k = %#v", k)
	}
	b, err := framework.MarshalJSON(got, framework.JSONPydantic)
	if err != nil || string(b) != `{"question":"q","options":[1,2.5,{"k":"b"}],"meta":{"n":null},"added":"x"}` {
		t.Errorf("written back: %s %v", b, err)
	}
	var none seedRow
	none.Clear()
	if err := session.Update(ctx, "none", func(r *seedRow) error { *r = none; return nil }); err != nil {
		t.Fatal(err)
	}
	if got, _, err := session.Get[seedRow](ctx, "none"); err != nil || !got.IsSet() || got.Len() != 0 {
		t.Errorf("a cleared Extra: set %v, %d keys, %v", got.IsSet(), got.Len(), err)
	}
}

type rowClash struct {
	Note string `json:"extra"`
	framework.Extra
}

type clashA struct{ ID string }

type clashB struct{ ID int }

type rowTwoEmbedded struct {
	clashA
	clashB
}

type named struct{ Name string }

type rowShadowed struct {
	Name string // written; the embedded named.Name is dropped
	named
}

// A state type in which encoding/json would drop a field without a word,
// because another has the same JSON key (a field named "extra" beside an
// embedded framework.Extra, two embedded structs at the same depth with
// the same key), is refused naming both fields; a deeper field shadowed
// by one of the struct's own is refused too.
func TestStateTypeShadowedFieldRefused(t *testing.T) {
	t.Parallel()
	m := session.MustNewManager(session.Options{CookieName: "c"})
	ctx := session.WithID(context.Background(), m, session.NewID())
	for _, tc := range []struct {
		name string
		err  error
		want []string
	}{
		{"extra key", session.Update(ctx, "a", func(*rowClash) error { return nil }), []string{"rowClash", `"extra"`, "Extra.Kept", "rowClash.Note"}},
		{"two embedded", session.Update(ctx, "b", func(*rowTwoEmbedded) error { return nil }), []string{"rowTwoEmbedded", `"ID"`, "clashA.ID", "clashB.ID"}},
		{"shadowed", session.Update(ctx, "c", func(*rowShadowed) error { return nil }), []string{"rowShadowed", `"Name"`, "named.Name", "rowShadowed.Name"}},
	} {
		if tc.err == nil {
			t.Errorf("%s: stored", tc.name)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(tc.err.Error(), w) {
				t.Errorf("%s: %q does not mention %q", tc.name, tc.err, w)
			}
		}
	}
}
