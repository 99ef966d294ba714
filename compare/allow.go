package compare

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"
)

// The headers a rule may name (see [Rule]).
const (
	// HeaderStatus names the answer's HTTP status (HTTP/2's pseudo-header).
	HeaderStatus = ":status"
	// HeaderContentType names the answer's Content-Type.
	HeaderContentType = "content-type"
	// HeaderSetCookie names the answer's Set-Cookie attributes.
	HeaderSetCookie = "set-cookie"
)

// Rule is one accepted difference of an allow-list file: the differences of
// the steps whose route matches Route, in the body at Path (or below it) or
// in the named Header, are allowed, for Reason. Rules come from
// [LoadAllowList] or [ParseAllowList], which check them and parse Path; in
// a Rule built otherwise, Path is not parsed and matches nothing, and the
// zero Rule allows nothing.
type Rule struct {
	// Route is the step's route, as reports print it ("POST /verify",
	// "POST /get_weather", "POST /mcp tools/call get_weather"); "*" matches
	// any run of characters, so "*" is every route and
	// "POST /mcp tools/call *" every MCP tool call.
	Route string `yaml:"route"`
	// Path is a JSON path in the answer's body: "$" (the whole body,
	// byte-level differences included), ".key" or `["key"]` for a member,
	// "[3]" for an item, "[*]" for any item, ".*" for any member, "(json)"
	// for the JSON text held by a string ($.result.content[0].text(json).reward).
	// A rule's path allows the differences at that path and below it.
	Path string `yaml:"path"`
	// Header is HeaderStatus, HeaderContentType or HeaderSetCookie.
	// Exactly one of Path and Header is set.
	Header string `yaml:"header"`
	// Reason says why the difference is accepted (required; printed beside
	// every difference the rule allows).
	Reason string `yaml:"reason"`
	// File and Line are where the rule is written (set by
	// [LoadAllowList]).
	File string `yaml:"-"`
	Line int    `yaml:"-"`

	path []segment
}

// Where is "<File>:<Line>".
func (r *Rule) Where() string { return fmt.Sprintf("%s:%d", r.File, r.Line) }

// AllowList is the rules of an allow-list file, in file order. The zero
// AllowList (or a nil one) allows nothing. It is safe for concurrent reads.
type AllowList struct {
	// Rules are the rules in file order.
	Rules []*Rule
}

// LoadAllowList reads an allow-list file: a YAML list of rules, each a
// mapping with route, path or header, and reason (see [Rule]):
//
//	# compare-allow.yaml
//	- route: POST /verify
//	  path: $.judge_evaluations[*].response.created_at
//	  reason: the judge model answers with its own clock
//	- route: "*"
//	  header: set-cookie
//	  reason: the reference sets a shorter max-age
//
// An empty file (or one of only comments) allows nothing. The error names
// the file and line of every problem at once (an unknown key, a key given
// twice in a rule, a missing route or reason, both or neither of path and
// header, a path that does not parse, an unknown header).
func LoadAllowList(path string) (*AllowList, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseAllowList(path, b)
}

// ParseAllowList is [LoadAllowList] on the file's content; name is the
// file name used in Rule.File and in errors. Both are safe for concurrent
// use.
func ParseAllowList(name string, content []byte) (*AllowList, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(content, &doc); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	list := &AllowList{}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return list, nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("%s:%d: an allow-list is a YAML list of rules (- route: ..., path: ... or header: ..., reason: ...)", name, root.Line)
	}
	var problems []error
	bad := func(line int, format string, args ...any) {
		problems = append(problems, fmt.Errorf("%s:%d: %s", name, line, fmt.Sprintf(format, args...)))
	}
	for _, n := range root.Content {
		if n.Kind != yaml.MappingNode {
			bad(n.Line, "a rule is a mapping with route, path or header, and reason")
			continue
		}
		r := &Rule{File: name, Line: n.Line}
		lines := map[string]int{} // the line of each key's value
		keyLines := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if first, dup := keyLines[k.Value]; dup {
				// YAML leaves a repeated key to the reader; a rule that says
				// path twice would allow what one of them says without a word.
				bad(k.Line, "%s is given twice in this rule (first at line %d): a rule has one route, one path or header, one reason", k.Value, first)
				continue
			}
			keyLines[k.Value] = k.Line
			lines[k.Value] = v.Line
			var dst *string
			switch k.Value {
			case "route":
				dst = &r.Route
			case "path":
				dst = &r.Path
			case "header":
				dst = &r.Header
			case "reason":
				dst = &r.Reason
			default:
				bad(k.Line, "unknown key %q: a rule has route, path or header, and reason", k.Value)
				continue
			}
			if v.Kind != yaml.ScalarNode {
				bad(v.Line, "%s must be a string", k.Value)
				continue
			}
			*dst = v.Value
		}
		ok := true
		if strings.TrimSpace(r.Route) == "" {
			bad(n.Line, `the rule has no route ("POST /verify", "*" for every route)`)
			ok = false
		}
		if strings.TrimSpace(r.Reason) == "" {
			bad(n.Line, "the rule has no reason: say why the difference is accepted")
			ok = false
		}
		switch {
		case r.Path != "" && r.Header != "":
			bad(n.Line, "the rule has both a path and a header: give one")
			ok = false
		case r.Path == "" && r.Header == "":
			bad(n.Line, `the rule has neither a path (a JSON path in the body, "$" for all of it) nor a header (%s, %s or %s)`,
				HeaderStatus, HeaderContentType, HeaderSetCookie)
			ok = false
		case r.Path != "":
			segs, err := parsePath(r.Path)
			if err != nil {
				bad(lines["path"], "path %q: %v", r.Path, err)
				ok = false
			}
			r.path = segs
		default:
			r.Header = strings.ToLower(r.Header)
			if r.Header != HeaderStatus && r.Header != HeaderContentType && r.Header != HeaderSetCookie {
				bad(lines["header"], "header %q: a rule names %s, %s or %s", r.Header, HeaderStatus, HeaderContentType, HeaderSetCookie)
				ok = false
			}
		}
		if ok {
			list.Rules = append(list.Rules, r)
		}
	}
	if len(problems) > 0 {
		return nil, errors.Join(problems...)
	}
	return list, nil
}

// allows returns the first rule that allows d in a step of one of routes
// (the reference's and gymkit's, which may differ on the MCP door's path),
// or nil. Differences of the fields "error", "step" and "route" are never
// allowed: there is no answer to compare.
func (l *AllowList) allows(routes []string, d *Difference) *Rule {
	if l == nil {
		return nil
	}
	var header string
	var path []segment
	switch d.Field {
	case FieldStatus:
		header = HeaderStatus
	case FieldContentType:
		header = HeaderContentType
	case FieldSetCookie:
		header = HeaderSetCookie
	case FieldBody:
		path = d.segs
	default:
		return nil
	}
	for _, r := range l.Rules {
		matched := false
		for _, route := range routes {
			if glob(r.Route, route) {
				matched = true
				break
			}
		}
		if !matched {
			continue
		}
		if header != "" {
			if r.Header == header {
				return r
			}
			continue
		}
		if r.path != nil && prefixMatch(r.path, path) {
			return r
		}
	}
	return nil
}

// glob reports whether s matches pattern, where "*" matches any run of
// characters (none included) and every other character itself.
func glob(pattern, s string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return pattern == s
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	last := parts[len(parts)-1]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(s, p)
		if i < 0 {
			return false
		}
		s = s[i+len(p):]
	}
	return len(s) >= len(last) && strings.HasSuffix(s, last)
}
