package compare

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// writeRollout writes one rollout readably: one line ("3 steps equal", or
// "3 steps: 1 different, 1 allowed, 1 equal"), then each step that is not
// equal with its differences.
func writeRollout(w io.Writer, ro Rollout) {
	var b strings.Builder
	fmt.Fprintf(&b, "task %s rollout %s (line %d): ", ro.TaskIndex, ro.RolloutIndex, ro.Line)
	count := map[string]int{}
	for _, st := range ro.Steps {
		count[st.Outcome]++
	}
	if count[OutcomeEqual] == len(ro.Steps) {
		fmt.Fprintf(&b, "%s equal\n", plural(len(ro.Steps), "step"))
	} else {
		var parts []string
		for _, o := range []string{OutcomeDifferent, OutcomeAllowed, OutcomeEqual} {
			if count[o] > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", count[o], o))
			}
		}
		fmt.Fprintf(&b, "%s: %s\n", plural(len(ro.Steps), "step"), strings.Join(parts, ", "))
	}
	if ro.ReferenceResult != ResultVerified || ro.GymkitResult != ResultVerified {
		fmt.Fprintf(&b, "  reference: %s\n  gymkit:    %s\n", ro.ReferenceResult, ro.GymkitResult)
	}
	for _, st := range ro.Steps {
		if st.Outcome == OutcomeEqual {
			continue
		}
		fmt.Fprintf(&b, "  step %d %s: %s", st.N, st.Route, st.Outcome)
		if st.RequestsDiffer {
			b.WriteString(" (the requests differ too)")
		}
		b.WriteByte('\n')
		for _, d := range st.Differences {
			b.WriteString("    " + d.String() + "\n")
		}
		if st.MoreDifferences > 0 {
			fmt.Fprintf(&b, "    ... and %d more\n", st.MoreDifferences)
		}
	}
	io.WriteString(w, b.String())
}

// String is the difference on one line: "<field> [<path>]: <reference> vs
// <gymkit> [(<kind>)]", then the note and the rule that allows it, if any:
//
//	body $.value: 1 vs 1.0 (number form)
//	body $.note: "measured" vs (absent) (missing)
//	set-cookie: diff: path=/; max-age=3600; ... vs diff: path=/; max-age=1209600; ...; allowed by allow.yaml:4: ...
func (d Difference) String() string {
	var b strings.Builder
	b.WriteString(d.Field)
	if d.Path != "" {
		b.WriteString(" " + d.Path)
	}
	side := func(s *string) string {
		if s == nil {
			return absent
		}
		return *s
	}
	fmt.Fprintf(&b, ": %s vs %s", side(d.Reference), side(d.Gymkit))
	if d.Kind != "" {
		b.WriteString(" (" + d.Kind + ")")
	}
	if d.Note != "" {
		b.WriteString("; " + d.Note)
	}
	if d.Allowed != nil {
		fmt.Fprintf(&b, "; allowed by %s: %s", d.Allowed.Rule, d.Allowed.Reason)
	}
	return b.String()
}

// writeSummary writes the summary line and the unused rules.
func writeSummary(w io.Writer, r *Report) {
	s := r.Summary
	fmt.Fprintf(w, "gymkit compare: %s, %s: %d equal, %d allowed, %d different; %s not allowed, %d allowed",
		plural(s.Rollouts, "rollout"), plural(s.Steps, "step"), s.Equal, s.Allowed, s.Different,
		plural(s.Differences, "difference"), s.AllowedDifferences)
	if s.NotRun > 0 {
		fmt.Fprintf(w, "; %d not run (interrupted)", s.NotRun)
	}
	io.WriteString(w, "\n")
	for _, u := range r.UnusedRules {
		fmt.Fprintf(w, "gymkit compare: allow-list rule %s allowed no difference\n", u)
	}
}

// plural is "1 step", "0 steps", "2 steps".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
