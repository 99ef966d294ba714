package config

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gymkit/gymkit/internal/pyjson"
)

// This file implements OmegaConf-style interpolation over the merged tree (koanf has none):
//
//	${a.b.c}             the value at a.b.c; a whole-value reference keeps its type
//	${a.list[0]}         list items (also ${a.list.0})
//	${.sibling} ${..x}   relative to the mapping holding the value, or its parent
//	${oc.env:NAME}       an environment variable (an error when unset)
//	${oc.env:NAME,def}   with a default: a string, null, or a nested interpolation
//	${oc.decode:text}    text read as a YAML scalar or flow value, e.g. ${oc.decode:${oc.env:PORT,8080}}
//	\${...}              a literal "${...}"
//
// Values are resolved lazily, only when a started block (or a top-level setting) needs them, so
// an agent block's ${policy_base_url} does not fail a resources server. Every value is resolved
// at most once; a reference back to a value being resolved is a cycle.

// part is a piece of a template: literal text or an interpolation.
type part struct {
	lit string
	in  *interp
}

// interp is one ${...}.
type interp struct {
	text     string // the source text, for messages
	resolver string // "oc.env", ...; "" for a key reference
	key      []part // the key of a reference (may itself contain interpolations)
	args     []arg  // the arguments of a resolver call
}

// arg is one resolver argument.
type arg struct {
	parts  []part
	quoted bool
}

const mandatory = "???"

func hasInterp(s string) bool { return strings.Contains(s, "${") }

// parseTemplate splits s into literal text and interpolations.
func parseTemplate(s string) ([]part, error) {
	parts, _, err := parseParts(s, 0, "")
	return parts, err
}

// parseParts reads s[i:] up to the first byte of stop outside any interpolation (or the end).
func parseParts(s string, i int, stop string) ([]part, int, error) {
	var parts []part
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			parts = append(parts, part{lit: lit.String()})
			lit.Reset()
		}
	}
	depth := 0 // open [ and { of literal text (a flow value like [1, 2] in an argument)
	for i < len(s) {
		switch c := s[i]; {
		case c == '\\' && strings.HasPrefix(s[i+1:], "${"):
			lit.WriteString("${")
			i += 3
		case strings.HasPrefix(s[i:], "${"):
			flush()
			in, end, err := parseInterp(s, i)
			if err != nil {
				return nil, 0, err
			}
			parts = append(parts, part{in: in})
			i = end
		case stop != "" && (c == '[' || c == '{'):
			depth++
			lit.WriteByte(c)
			i++
		case depth > 0 && (c == ']' || c == '}'):
			depth--
			lit.WriteByte(c)
			i++
		case depth == 0 && stop != "" && strings.IndexByte(stop, c) >= 0:
			flush()
			return parts, i, nil
		default:
			lit.WriteByte(c)
			i++
		}
	}
	flush()
	return parts, i, nil
}

func isResolverNameByte(c byte) bool {
	return c == '_' || c == '.' || c == '-' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
}

// parseInterp reads the interpolation starting at s[start] ("${") and returns the index after it.
func parseInterp(s string, start int) (*interp, int, error) {
	unterminated := fmt.Errorf("unterminated interpolation in %q (missing `}`)", s)
	i := start + 2
	j := i
	for j < len(s) && isResolverNameByte(s[j]) {
		j++
	}
	in := &interp{}
	if j > i && j < len(s) && s[j] == ':' {
		in.resolver = s[i:j]
		i = j + 1
		for {
			a, end, err := parseArg(s, i)
			if err != nil {
				return nil, 0, err
			}
			in.args = append(in.args, a)
			if end >= len(s) {
				return nil, 0, unterminated
			}
			i = end + 1
			if s[end] == '}' {
				break
			}
		}
	} else {
		parts, end, err := parseParts(s, i, "}")
		if err != nil {
			return nil, 0, err
		}
		if end >= len(s) {
			return nil, 0, unterminated
		}
		in.key = trimParts(parts)
		if len(in.key) == 0 {
			return nil, 0, fmt.Errorf("empty interpolation `${}` in %q", s)
		}
		i = end + 1
	}
	in.text = s[start:i]
	return in, i, nil
}

// parseArg reads one resolver argument from s[i:], up to the `,` or `}` after it.
func parseArg(s string, i int) (arg, int, error) {
	for i < len(s) && s[i] == ' ' {
		i++
	}
	if i < len(s) && (s[i] == '\'' || s[i] == '"') {
		q := s[i]
		var b strings.Builder
		for i++; i < len(s) && s[i] != q; i++ {
			if s[i] == '\\' && i+1 < len(s) {
				i++
			}
			b.WriteByte(s[i])
		}
		if i >= len(s) {
			return arg{}, 0, fmt.Errorf("unterminated quoted argument in %q", s)
		}
		for i++; i < len(s) && s[i] == ' '; i++ {
		}
		if i < len(s) && s[i] != ',' && s[i] != '}' {
			return arg{}, 0, fmt.Errorf("unexpected text after a quoted argument in %q", s)
		}
		return arg{parts: []part{{lit: b.String()}}, quoted: true}, i, nil
	}
	parts, end, err := parseParts(s, i, ",}")
	if err != nil {
		return arg{}, 0, err
	}
	return arg{parts: trimParts(parts)}, end, nil
}

// trimParts trims spaces around a template and drops empty literals.
func trimParts(parts []part) []part {
	if n := len(parts); n > 0 && parts[n-1].in == nil {
		parts[n-1].lit = strings.TrimRight(parts[n-1].lit, " \t")
	}
	if len(parts) > 0 && parts[0].in == nil {
		parts[0].lit = strings.TrimLeft(parts[0].lit, " \t")
	}
	return slices.DeleteFunc(parts, func(p part) bool { return p.in == nil && p.lit == "" })
}

// errReported means the failure was already recorded as a problem (at the key that caused it).
var errReported = errors.New("already reported")

// refError is a failure to resolve, recorded at the key whose value failed.
type refError struct {
	msg        string
	suggestion string
	notFound   bool
}

func (e *refError) Error() string { return e.msg }

// cycleError travels up from the reference that closed a cycle to the value that opened it,
// where it is recorded once.
type cycleError struct {
	start string
	chain []string
}

func (e *cycleError) Error() string { return "interpolation cycle: " + strings.Join(e.chain, " -> ") }

// resolveProblem is a problem found while resolving, located later through the sources.
type resolveProblem struct {
	key, msg, suggestion string
	bound                bool // a bound of interpolation was reached (Problem.ExceedsBound)
}

// The bounds of interpolation over one configuration (docs/config.md, Interpolation). A
// resolved value may share the values it references (${a} twice is one value held twice), so a
// few lines that each reference the line above twice stand for a value of 2^n parts: these
// bounds count what the references stand for, as anything that walks or prints the resolved
// tree would, and refuse the key whose resolution goes past one of them.
const (
	// MaxInterpolationBytes bounds the text the interpolations of one configuration produce,
	// all together: 16 MiB. The text of a string built from interpolations counts, as do the
	// strings and keys inside a mapping or list that a reference copies, and the value of each
	// ${oc.env:...}.
	MaxInterpolationBytes = 16 << 20
	// MaxInterpolationSteps bounds the work of the interpolations of one configuration, all
	// together: 250,000 steps. Each ${...} evaluated is a step, and so is each value (a
	// scalar, a mapping, a list, each item and member) a reference copies.
	MaxInterpolationSteps = 250_000
	// MaxInterpolationNesting bounds how deeply references nest: a value whose reference names
	// a value whose reference names ..., 100 deep.
	MaxInterpolationNesting = 100
)

// errBudget is the failure of a resolution that went past a bound of interpolation.
type errBudget struct{ msg string }

func (e *errBudget) Error() string { return e.msg }

// resolver resolves values of one merged tree. It is not safe for concurrent use.
type resolver struct {
	root      map[string]any
	lookupEnv func(string) (string, bool)
	done      map[string]any  // resolved values by key
	failed    map[string]bool // keys whose failure is recorded (or travels as a cycleError)
	active    map[string]int  // keys being resolved -> index in stack
	stack     []string
	problems  []resolveProblem

	bytes, steps int             // spent so far of MaxInterpolationBytes and MaxInterpolationSteps
	refs         int             // references being resolved, nested
	spent        bool            // a bound was reached (and reported): nothing more is resolved
	budget       *resolveProblem // the problem of the bound reached, once spent
}

// charge counts v, a value a reference or a resolver copies into the resolved tree, against
// the bounds, and fails once one is passed. It walks v at most as far as the bounds still
// allow, so all the charging of a resolver costs no more than the bounds.
func (r *resolver) charge(v any) error {
	r.steps++
	switch x := v.(type) {
	case string:
		r.bytes += len(x)
	case map[string]any:
		for k, e := range x {
			r.bytes += len(k)
			if err := r.charge(e); err != nil {
				return err
			}
		}
	case []any:
		for _, e := range x {
			if err := r.charge(e); err != nil {
				return err
			}
		}
	}
	return r.overBudget()
}

// overBudget is the failure once a bound is passed, else nil.
func (r *resolver) overBudget() error {
	switch {
	case r.bytes > MaxInterpolationBytes:
		return &errBudget{fmt.Sprintf("interpolation produces more than %d MiB of text in this configuration (its references copy what they name each time; see docs/config.md, Interpolation)", MaxInterpolationBytes>>20)}
	case r.steps > MaxInterpolationSteps:
		return &errBudget{fmt.Sprintf("interpolation takes more than %d steps in this configuration (each ${...} and each value a reference copies is one; see docs/config.md, Interpolation)", MaxInterpolationSteps)}
	}
	return nil
}

func newResolver(root map[string]any, lookupEnv func(string) (string, bool)) *resolver {
	return &resolver{
		root: root, lookupEnv: lookupEnv,
		done: map[string]any{}, failed: map[string]bool{}, active: map[string]int{},
	}
}

// takeProblems returns the problems recorded since the last call.
func (r *resolver) takeProblems() []resolveProblem {
	ps := r.problems
	r.problems = nil
	return ps
}

// lookup resolves the value at p. found is false when the key does not exist (not an error).
// On failure the problems are recorded and err is errReported; v may then be a partial mapping
// or list (the entries that resolved).
func (r *resolver) lookup(p keyPath) (v any, found bool, err error) {
	raw, resolved, err := r.get(p)
	if err != nil {
		var re *refError
		if errors.As(err, &re) && re.notFound {
			return nil, false, nil
		}
		return nil, true, err
	}
	if resolved {
		return raw, true, nil
	}
	v, err = r.resolve(p, raw)
	return v, true, err
}

// resolve returns raw (the value at p) with every interpolation in it resolved.
func (r *resolver) resolve(p keyPath, raw any) (any, error) {
	switch v := raw.(type) {
	case string:
		if !hasInterp(v) {
			return v, nil
		}
	case map[string]any, []any:
	default:
		return raw, nil
	}
	key := p.String()
	if v, ok := r.done[key]; ok {
		return v, nil
	}
	if r.failed[key] || r.spent {
		return nil, errReported
	}
	if idx, ok := r.active[key]; ok {
		chain := append(slices.Clone(r.stack[idx:]), key)
		return nil, &cycleError{start: key, chain: chain}
	}
	r.active[key] = len(r.stack)
	r.stack = append(r.stack, key)
	v, err := r.eval(p, raw)
	r.stack = r.stack[:len(r.stack)-1]
	delete(r.active, key)
	if err == nil {
		r.done[key] = v
		return v, nil
	}
	r.failed[key] = true
	var ce *cycleError
	switch {
	case errors.As(err, &ce):
		if ce.start != key {
			return v, err
		}
		r.problems = append(r.problems, resolveProblem{key: key, msg: ce.Error()})
	case errors.Is(err, errReported):
	default:
		var re *refError
		var be *errBudget
		if errors.As(err, &be) {
			r.spent = true
			r.budget = &resolveProblem{key: key, msg: be.msg, bound: true}
			r.problems = append(r.problems, *r.budget)
			break
		}
		if errors.As(err, &re) {
			r.problems = append(r.problems, resolveProblem{key: key, msg: re.msg, suggestion: re.suggestion})
		} else {
			r.problems = append(r.problems, resolveProblem{key: key, msg: err.Error()})
		}
	}
	return v, errReported
}

// eval resolves a string with interpolations, or every entry of a mapping or list. A mapping or
// list with failed entries comes back partial, with the error of its first failure (a cycle that
// must travel further up wins).
func (r *resolver) eval(p keyPath, raw any) (any, error) {
	var firstErr error
	note := func(err error) {
		var ce *cycleError
		if firstErr == nil || (errors.As(err, &ce) && !errors.As(firstErr, &ce)) {
			firstErr = err
		}
	}
	switch v := raw.(type) {
	case string:
		parts, err := parseTemplate(v)
		if err != nil {
			return nil, &refError{msg: err.Error()}
		}
		return r.evalParts(p, parts)
	case map[string]any:
		out := make(map[string]any, len(v))
		for _, k := range sortedKeys(v) {
			rv, err := r.resolve(p.with(k), v[k])
			if err != nil {
				note(err)
				if rv == nil { // a failed scalar; a failed mapping or list stays, partial
					continue
				}
			}
			out[k] = rv
		}
		return out, firstErr
	case []any:
		out := make([]any, 0, len(v))
		for i, item := range v {
			rv, err := r.resolve(p.with(i), item)
			if err != nil {
				note(err)
			}
			out = append(out, rv)
		}
		return out, firstErr
	}
	return raw, nil
}

// evalParts evaluates a template. A template that is exactly one interpolation keeps the type of
// its value; anything else is a string.
func (r *resolver) evalParts(p keyPath, parts []part) (any, error) {
	if len(parts) == 1 && parts[0].in != nil {
		return r.evalInterp(p, parts[0].in)
	}
	var b strings.Builder
	for _, pt := range parts {
		if pt.in == nil {
			b.WriteString(pt.lit)
			continue
		}
		v, err := r.evalInterp(p, pt.in)
		if err != nil {
			return nil, err
		}
		s, err := toText(v)
		if err != nil {
			return nil, &refError{msg: fmt.Sprintf("%s: %v", pt.in.text, err)}
		}
		b.WriteString(s)
	}
	return b.String(), nil
}

// knownResolvers are the resolvers gymkit implements.
var knownResolvers = []string{"oc.env", "oc.decode"}

func (r *resolver) evalInterp(p keyPath, in *interp) (any, error) {
	if r.spent {
		return nil, errReported
	}
	r.steps++
	if err := r.overBudget(); err != nil {
		return nil, err
	}
	if in.resolver == "" {
		kv, err := r.evalParts(p, in.key)
		if err != nil {
			return nil, err
		}
		key, err := toText(kv)
		if err != nil {
			return nil, &refError{msg: fmt.Sprintf("%s: the key %v", in.text, err)}
		}
		return r.ref(p, key, in.text)
	}
	switch in.resolver {
	case "oc.env":
		return r.env(p, in)
	case "oc.decode":
		if len(in.args) != 1 {
			return nil, &refError{msg: fmt.Sprintf("%s: oc.decode takes one argument", in.text)}
		}
		v, err := r.evalParts(p, in.args[0].parts)
		if err != nil {
			return nil, err
		}
		s, ok := v.(string)
		if !ok {
			return v, nil
		}
		dv, err := parseValue(s)
		if err != nil {
			return nil, &refError{msg: fmt.Sprintf("%s: %v", in.text, err)}
		}
		return dv, nil
	case "inherit_from", "copy":
		return nil, &refError{msg: fmt.Sprintf("%s: NeMo's %s directive is not supported by gymkit", in.text, in.resolver)}
	}
	return nil, &refError{
		msg:        fmt.Sprintf("%s: unknown resolver %q (gymkit has %s)", in.text, in.resolver, strings.Join(knownResolvers, ", ")),
		suggestion: suggest(in.resolver, knownResolvers),
	}
}

// env implements ${oc.env:NAME} and ${oc.env:NAME,default}: the variable's value (always a
// string), else the default converted to a string (null stays null), else an error.
func (r *resolver) env(p keyPath, in *interp) (any, error) {
	if len(in.args) < 1 || len(in.args) > 2 {
		return nil, &refError{msg: fmt.Sprintf("%s: oc.env takes a variable name and an optional default", in.text)}
	}
	nv, err := r.evalParts(p, in.args[0].parts)
	if err != nil {
		return nil, err
	}
	name, err := toText(nv)
	if err != nil || name == "" {
		return nil, &refError{msg: fmt.Sprintf("%s: missing environment variable name", in.text)}
	}
	if v, ok := r.lookupEnv(name); ok {
		if err := r.charge(v); err != nil {
			return nil, err
		}
		return v, nil
	}
	if len(in.args) == 1 {
		return nil, &refError{msg: fmt.Sprintf("%s: environment variable %s is not set (give a default: ${oc.env:%s,default})", in.text, name, name)}
	}
	def := in.args[1]
	if !def.quoted && len(def.parts) == 1 && def.parts[0].in == nil && def.parts[0].lit == "null" {
		return nil, nil
	}
	dv, err := r.evalParts(p, def.parts)
	if err != nil || dv == nil {
		return nil, err
	}
	s, err := toText(dv)
	if err != nil {
		return nil, &refError{msg: fmt.Sprintf("%s: the default %v", in.text, err)}
	}
	return s, nil
}

// ref resolves a key reference made from the value at p.
func (r *resolver) ref(p keyPath, key, text string) (any, error) {
	target, err := r.refPath(p, key)
	if err != nil {
		return nil, &refError{msg: fmt.Sprintf("%s: %v", text, err)}
	}
	raw, resolved, err := r.get(target)
	if err != nil {
		var re *refError
		if errors.As(err, &re) {
			return nil, &refError{msg: text + ": " + re.msg, suggestion: re.suggestion}
		}
		return nil, err
	}
	v := raw
	if !resolved {
		if r.refs >= MaxInterpolationNesting {
			return nil, &errBudget{fmt.Sprintf("%s: references nest more than %d deep (a value naming a value naming ...; see docs/config.md, Interpolation)", text, MaxInterpolationNesting)}
		}
		r.refs++
		v, err = r.resolve(target, raw)
		r.refs--
		if err != nil {
			return nil, err
		}
	}
	if err := r.charge(v); err != nil {
		return nil, err
	}
	if s, ok := v.(string); ok && s == mandatory {
		return nil, &refError{msg: fmt.Sprintf("%s: %s is ??? (a mandatory value that was never set)", text, target)}
	}
	return v, nil
}

// refPath turns a reference key into an absolute path. Leading dots make it relative: one dot
// is the mapping holding the value at p, each further dot one level up.
func (r *resolver) refPath(p keyPath, key string) (keyPath, error) {
	dots := len(key) - len(strings.TrimLeft(key, "."))
	var base keyPath
	if dots > 0 {
		if dots > len(p) {
			return nil, fmt.Errorf("relative key %q goes above the top level", key)
		}
		base = p[:len(p)-dots]
		key = key[dots:]
		if key == "" {
			return base, nil
		}
	}
	segs, err := parseKey(key)
	if err != nil {
		return nil, err
	}
	return append(slices.Clone(base), segs...), nil
}

// get walks to target in the raw tree, resolving interpolated values on the way
// (${a.b.c} where a.b is "${other}" reads other.c). resolved reports that the value returned
// came out of a resolved value and must not be resolved again.
func (r *resolver) get(target keyPath) (v any, resolved bool, err error) {
	var cur any = r.root
	for i, seg := range target {
		if s, ok := cur.(string); ok && i > 0 && !resolved && hasInterp(s) {
			if cur, err = r.resolve(target[:i], s); err != nil {
				return nil, false, err
			}
			resolved = true
		}
		switch c := cur.(type) {
		case map[string]any:
			k := fmt.Sprint(seg)
			next, ok := c[k]
			if !ok {
				e := &refError{msg: fmt.Sprintf("key %s not found", target[:i+1]), notFound: true}
				if s := suggest(k, sortedKeys(c)); s != "" {
					e.suggestion = target[:i].with(s).String()
				}
				return nil, false, e
			}
			cur = next
		case []any:
			idx, ok := seg.(int)
			if !ok {
				n, err := strconv.Atoi(fmt.Sprint(seg))
				if err != nil {
					return nil, false, &refError{msg: fmt.Sprintf("key %s not found: %s is a list", target[:i+1], target[:i]), notFound: true}
				}
				idx = n
			}
			if idx < 0 || idx >= len(c) {
				return nil, false, &refError{msg: fmt.Sprintf("key %s not found: the list has %d items", target[:i+1], len(c)), notFound: true}
			}
			cur = c[idx]
		default:
			return nil, false, &refError{msg: fmt.Sprintf("key %s not found: %s is not a mapping", target[:i+1], target[:i]), notFound: true}
		}
	}
	return cur, resolved, nil
}

// toText renders a scalar inside a string: null, true, 8080, 0.5, 1.0.
func toText(v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "null", nil
	case string:
		return x, nil
	case bool:
		return strconv.FormatBool(x), nil
	case float64:
		return floatText(x), nil
	case float32:
		return floatText(float64(x)), nil
	case map[string]any:
		return "", errors.New("is a mapping, which cannot be part of a string")
	case []any:
		return "", errors.New("is a list, which cannot be part of a string")
	}
	return fmt.Sprint(v), nil
}

// floatText writes a float as Python's str() does (1.0, 0.5, 1e+20, 1e-07,
// inf, -inf, nan), as OmegaConf writes a float inside a string: Python's
// float repr, internal/pyjson's PythonFloats.
func floatText(f float64) string {
	return string(pyjson.AppendFloat(nil, f, 64, pyjson.PythonFloats))
}
