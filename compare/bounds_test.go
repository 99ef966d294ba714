package compare

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/internal/pyjson"
)

// Bodies beyond the values bound are compared as bytes, with a note that says why.
func TestDiffBodiesBeyondTheBound(t *testing.T) {
	t.Parallel()
	var st Step
	diffBodies([]byte(`[1,2,3,4]`), []byte(`[1,2,3,5]`), pyjson.Limits{MaxElements: 4}, &sink{st: &st})
	want := "body $: [1,2,3,4] vs [1,2,3,5] (bytes); too large to compare as JSON (more than 4 values or 1000 levels, --max-answer-values); they differ from byte 7"
	if len(st.Differences) != 1 || st.Differences[0].String() != want {
		t.Errorf("got %v\nwant %s", st.Differences, want)
	}
}

// A step's differences are judged as they are found: every one counts, the first 100 are
// kept, and an object of many keys is compared in time proportional to its keys.
func TestSinkKeepsTheFirstDifferences(t *testing.T) {
	t.Parallel()
	var ref, got strings.Builder
	ref.WriteString(`{"a":1`)
	got.WriteString(`{"a":1`)
	for i := range 100_000 {
		fmt.Fprintf(&ref, `,"k%d":1`, i)
		fmt.Fprintf(&got, `,"k%d":2`, i)
	}
	ref.WriteString(`,"gone":true}`)
	got.WriteString(`}`)
	allow := &AllowList{Rules: []*Rule{{Route: "*", Path: "$.gone", Reason: "r", File: "a.yaml", Line: 1, path: []segment{{kind: segKey, key: "gone"}}}}}
	st := Step{Differences: []Difference{}}
	out := &sink{st: &st, routes: []string{"POST /verify"}, allow: allow, used: map[*Rule]bool{}}
	diffBodies([]byte(ref.String()), []byte(got.String()), pyjson.Limits{}, out)
	out.outcome()
	if len(st.Differences) != maxDifferences || st.MoreDifferences != 100_001-maxDifferences || st.notAllowed != 100_000 || st.allowed != 1 || st.Outcome != OutcomeDifferent {
		t.Errorf("kept %d, more %d, not allowed %d, allowed %d, outcome %s", len(st.Differences), st.MoreDifferences, st.notAllowed, st.allowed, st.Outcome)
	}
	if d := st.Differences[0].String(); d != "body $.k0: 1 vs 2 (value)" {
		t.Errorf("first difference %q", d)
	}
}
