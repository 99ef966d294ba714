package config

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Problem is one thing wrong with the configuration: where it is, what is wrong, and the closest
// known key or value when there is one.
//
// Problem implements error; its text has the compiler shape
//
//	x.yaml:7: weather.resources_servers.example_mcp_weather.defualt_city: unknown key; did you mean `default_city`?
//
// where the file, the line and the key are left out when unknown.
type Problem struct {
	// File is where the offending key was last set: a config file path as given in LoadOptions.Files
	// or config_paths, the env.yaml path, or "command line" for an override. "" when unknown.
	File string
	// Line is the 1-based line of the key in File, 0 when unknown (always 0 for overrides).
	Line int
	// Key is the dotted key path of the offending value, list items as [i]
	// ("weather.resources_servers.example_mcp_weather.port", "disallowed_ports[1]").
	// "" for a problem with a whole file or override.
	Key string
	// Message says what is wrong, without the key or the file.
	Message string
	// Suggestion is the closest known key or value ("default_city", "agent"), "" when none is close.
	Suggestion string

	bound bool // see ExceedsBound
}

// ExceedsBound reports whether p refuses an interpolation that went past one of its bounds
// ([MaxInterpolationBytes], [MaxInterpolationSteps], [MaxInterpolationNesting]): such a
// configuration cannot be resolved anywhere, whatever the environment variables, and nothing
// more of it was resolved after p.
func (p Problem) ExceedsBound() bool { return p.bound }

// Error renders the problem as one line (see [Problem]). A key or suggestion with a space or a
// rune that is not printable is quoted (%q), and any other rune that is not printable is
// written as its Go escape (\x1b), so that the line never writes control bytes.
func (p Problem) Error() string {
	var b strings.Builder
	if p.File != "" {
		b.WriteString(escapeControls(p.File))
		if p.Line > 0 {
			fmt.Fprintf(&b, ":%d", p.Line)
		}
		b.WriteString(": ")
	}
	if p.Key != "" {
		b.WriteString(quoteKey(p.Key))
		b.WriteString(": ")
	}
	b.WriteString(escapeControls(p.Message))
	if p.Suggestion != "" {
		fmt.Fprintf(&b, "; did you mean `%s`?", quoteKey(p.Suggestion))
	}
	return b.String()
}

// Problems is every problem found in one step ([Load], [Instance.Decode], [Config.AssignPorts]),
// in a stable order: the files and overrides in merge order, then the instances by name.
// The functions of this package return it as their error when anything is wrong, never an
// empty Problems; get it back with errors.As. A command line tool prints Error() and exits 2.
type Problems []Problem

// Error renders the problems one per line, after a count when there are several.
func (ps Problems) Error() string {
	switch len(ps) {
	case 0:
		return "config: no problems"
	case 1:
		return "config: " + ps[0].Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "config: %d problems:", len(ps))
	for _, p := range ps {
		b.WriteString("\n\t")
		b.WriteString(p.Error())
	}
	return b.String()
}

// err returns ps as an error, or nil when there are no problems.
func (ps Problems) err() error {
	if len(ps) == 0 {
		return nil
	}
	return ps
}

// Suggest returns the candidate closest to word, or "" when none is close: the "did you mean"
// rule of every config problem (Damerau-Levenshtein distance, ignoring case, within a third of
// word's length, at least 1 and at most 3 edits).
func Suggest(word string, candidates []string) string { return suggest(word, candidates) }

// suggest returns the candidate closest to word (Damerau-Levenshtein distance, ignoring case),
// or "" when none is within a third of word's length (at least 1, at most 3 edits).
// Ties go to the alphabetically first candidate; word itself is never suggested.
func suggest(word string, candidates []string) string {
	limit := min(max(utf8.RuneCountInString(word)/3, 1), 3)
	lw := strings.ToLower(word)
	best, bestDist := "", limit+1
	for _, c := range candidates {
		if c == word {
			continue
		}
		d := editDistance(lw, strings.ToLower(c))
		if d < bestDist || (d == bestDist && best != "" && c < best) {
			best, bestDist = c, d
		}
	}
	if bestDist > limit {
		return ""
	}
	return best
}

// editDistance is the optimal-string-alignment distance between a and b: insertions, deletions,
// substitutions and transpositions of adjacent runes each cost 1.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// Three rolling rows: i-2, i-1 and i.
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// sortProblems orders the problems of one instance as they appear in the files: by file, line,
// then key.
func sortProblems(ps Problems) {
	slices.SortStableFunc(ps, func(a, b Problem) int {
		return cmp.Or(strings.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), strings.Compare(a.Key, b.Key))
	})
}
