package workplace

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/pycompat"
	"github.com/gymkit/gymkit/pycompat/pandas"
	"github.com/gymkit/gymkit/pycompat/pystr"
	"github.com/gymkit/gymkit/pycompat/pyval"
)

// args are one call's keyword arguments: the body's members (nulls dropped on
// the live path, kept on verify's replay).
type args map[string]value

// get returns the argument, or def when it was not passed.
func (a args) get(name string, def value) value {
	if v, ok := a[name]; ok {
		return v
	}
	return def
}

// toolFunc runs one tool on a world (its lock held). The result is the
// reference's return value; an error is an exception escaping the tool.
type toolFunc func(w *world, a args) (value, error)

// toolDef is one of the 27 tools: its wire name, the Python class and method
// that implement it in the reference (for TypeError texts), its parameters in
// signature order, and its implementation.
type toolDef struct {
	name   string
	class  string
	method string
	params []string
	fn     toolFunc
}

var (
	toolList   []*toolDef
	toolByName = map[string]*toolDef{}
)

func defTool(class, prefix, method string, params []string, fn toolFunc) {
	t := &toolDef{name: prefix + method, class: class, method: method, params: params, fn: fn}
	toolList = append(toolList, t)
	toolByName[t.name] = t
}

// bind checks the keyword arguments as Python's call binding does: the first
// offending key in body order names the TypeError. Every parameter has a
// default; the bound methods also take self.
func (t *toolDef) bind(body []framework.Member) (args, error) {
	a := make(args, len(body))
	for _, m := range body {
		switch {
		case m.Key == "self":
			return nil, pycompat.TypeError(fmt.Sprintf("%s.%s() got multiple values for argument 'self'", t.class, t.method))
		case !slices.Contains(t.params, m.Key):
			return nil, pycompat.TypeError(fmt.Sprintf("%s.%s() got an unexpected keyword argument '%s'", t.class, t.method, m.Key))
		}
		a[m.Key] = m.Value
	}
	return a, nil
}

// call runs tool name on w with the body's members as keyword arguments,
// under w's lock. A non-nil error is the exception the reference's
// dispatcher would catch (an unknown tool is a KeyError).
func (w *world) call(name string, body []framework.Member) (value, error) {
	out, _, err := w.callTracked(name, body)
	return out, err
}

// callTracked is call that also reports whether the tool wrote to the
// world; when it did, it updates w.size (the bytes estimate) before w's
// lock is released.
func (w *world) callTracked(name string, body []framework.Member) (out value, wrote bool, err error) {
	return w.callBefore(context.Background(), name, body)
}

// callBefore is callTracked under the tool call's deadline (tool_timeout):
// once ctx's deadline has passed, the call has been answered 504, so the
// tool does not run and ctx's error is returned (checked under w's lock,
// after any parallel call of the rollout). A client that went away
// (ctx canceled) does not stop it, as with NeMo.
func (w *world) callBefore(ctx context.Context, name string, body []framework.Member) (out value, wrote bool, err error) {
	t, ok := toolByName[name]
	if !ok {
		return value{}, false, pycompat.KeyError(name)
	}
	a, err := t.bind(body)
	if err != nil {
		return value{}, false, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := ctx.Err(); errors.Is(err, context.DeadlineExceeded) {
		return value{}, false, err
	}
	before, converted := w.writes, w.analyticsConverted
	out, err = t.fn(w, a)
	if wrote = w.writes != before || w.analyticsConverted != converted; wrote {
		w.size.Store(w.bytes())
	}
	return out, wrote, err
}

// nextID is str(int(column.max()) + 1), zero-padded to 8 when pad is set.
func nextID(k pandas.Series, pad bool) (string, error) {
	mx, ok, err := k.Max()
	if err != nil {
		return "", err
	}
	if !ok {
		return "", pycompat.ValueError("cannot convert float NaN to integer")
	}
	n, err := pyval.Int(mx)
	if err != nil {
		return "", err
	}
	s := new(big.Int).Add(n, big.NewInt(1)).String()
	if pad {
		s = pystr.ZFill(s, 8)
	}
	return s, nil
}

// rowsWhere returns the indexes of rows (among idx) for which keep is true.
func rowsWhere(idx []int, keep []bool) []int {
	var out []int
	for k, i := range idx {
		if keep[k] {
			out = append(out, i)
		}
	}
	return out
}

func allRows(t *table) []int {
	idx := make([]int, t.Len())
	for i := range idx {
		idx[i] = i
	}
	return idx
}

func records(t *table, idx []int) value {
	items := make([]value, len(idx))
	for k, i := range idx {
		items[k] = record(t, i)
	}
	return vList(items)
}

// --- pagination (spec section 3.5) ---

type pagination struct {
	page       value // the clamped page, as echoed
	totalPages value
	start, end any // Python ints (or floats, which slicing refuses)
}

// paginate runs the reference's arithmetic with Python's semantics
// (pycompat/pyval):
//
//	total_pages = (total + page_size - 1) // page_size
//	page = max(1, min(page, total_pages)) if total_pages > 0 else 1
//	start = (page - 1) * page_size; end = min(start + page_size, total)
func paginate(total int, page, pageSize value) (pagination, error) {
	var pg pagination
	t1, err := pyval.Add(total, pageSize)
	if err != nil {
		return pg, err
	}
	t2, err := pyval.Sub(t1, 1)
	if err != nil {
		return pg, err
	}
	tp, err := pyval.FloorDiv(t2, pageSize)
	if err != nil {
		return pg, err
	}
	if pg.totalPages, err = pyval.ToValue(tp); err != nil {
		return pg, err
	}
	p := vInt(1)
	if pos, _ := pyval.Compare(tp, ">", 0); pos {
		m := page
		lt, err := pyval.Compare(tp, "<", page)
		if err != nil {
			return pg, err
		}
		if lt {
			m = pg.totalPages
		}
		gt, err := pyval.Compare(m, ">", 1)
		if err != nil {
			return pg, err
		}
		if gt {
			p = m
		}
	}
	pg.page = p
	pm1, err := pyval.Sub(p, 1)
	if err != nil {
		return pg, err
	}
	if pg.start, err = pyval.Mul(pm1, pageSize); err != nil {
		return pg, err
	}
	if pg.end, err = pyval.Add(pg.start, pageSize); err != nil {
		return pg, err
	}
	if lt, _ := pyval.Compare(total, "<", pg.end); lt {
		pg.end = total
	}
	return pg, nil
}

// slice returns list[start:end] bounds for a list of length n.
func (pg pagination) slice(n int) (int, int, error) {
	return pyval.SliceBounds(n, pg.start, pg.end)
}

// pageObject builds {"<items>": [...], "pagination": {...}}.
func pageObject(itemsKey string, items value, totalKey string, total int, pg pagination, pageSize value) value {
	var p object
	p.add(totalKey, vInt(total))
	p.add("page", pg.page)
	p.add("page_size", pageSize)
	p.add("total_pages", pg.totalPages)
	var o object
	o.add(itemsKey, items)
	o.add("pagination", p.value())
	return o.value()
}

// validEventID is isinstance(x, str) and len(x) == 8 and x.isdigit().
func validEventID(v value) bool {
	if !isStr(v) {
		return false
	}
	n := 0
	for _, r := range v.Str {
		if !pystr.IsDigitChar(r) {
			return false
		}
		n++
	}
	return n == 8
}

// joinNames joins names for the reference's messages.
func joinNames(names []string) string { return strings.Join(names, ", ") }
