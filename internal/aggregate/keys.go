package aggregate

import (
	"math"
	"math/big"
	"strconv"

	"github.com/gymkit/gymkit/internal/pyjson"
)

// idxKey is one _ng_task_index or _ng_rollout_index value with Python's
// equality (1 == 1.0 == True), hashing (canon) and ordering.
type idxKey struct {
	str   bool     // a Python str; else a number (bools are the ints 0/1)
	s     string   // str value
	isInt bool     // number is an integer value held exactly in i
	i     int64    // integer value when isInt
	big   *big.Int // integer value too large for int64 (nil otherwise)
	f     float64  // float value when !isInt && big == nil
	canon canon    // equal keys have equal canon
}

// canon identifies a key up to Python equality: integral numbers (ints,
// bools, integral floats) by their integer value, other floats by their
// bits, strings by their text.
type canon struct {
	kind byte // 'i' int64 value in n, 'b' big integer in s, 'f' float bits in n, 's' string in s
	n    int64
	s    string
}

// makeKey converts a raw index value. Arrays and objects give Python's
// TypeError for an unhashable value; None and NaN, which Python accepts but
// which give degenerate results there, are refused with a ValueError.
func makeKey(v pyjson.Value) (idxKey, error) {
	switch v.Kind {
	case pyjson.String:
		return idxKey{str: true, s: v.Str, canon: canon{kind: 's', s: v.Str}}, nil
	case pyjson.Bool:
		if v.Bool {
			return intKey(1), nil
		}
		return intKey(0), nil
	case pyjson.Number:
		if !v.IsFloat() {
			if i, err := strconv.ParseInt(v.Str, 10, 64); err == nil {
				return intKey(i), nil
			}
			b, ok := new(big.Int).SetString(v.Str, 10)
			if !ok {
				return idxKey{}, pyErr("ValueError", "invalid index literal "+v.Str)
			}
			return idxKey{big: b, canon: canon{kind: 'b', s: b.String()}}, nil
		}
		f, _ := strconv.ParseFloat(v.Str, 64)
		if math.IsNaN(f) {
			return idxKey{}, pyErr("ValueError", "gymkit does not accept NaN as a rollout key index")
		}
		return floatKey(f), nil
	case pyjson.Array, pyjson.Object:
		return idxKey{}, pyErr("TypeError", "unhashable type: '"+pyTypeName(v)+"'")
	}
	return idxKey{}, pyErr("ValueError", "gymkit does not accept None as a rollout key index")
}

func intKey(i int64) idxKey {
	return idxKey{isInt: true, i: i, canon: canon{kind: 'i', n: i}}
}

func floatKey(f float64) idxKey {
	if f == math.Trunc(f) && !math.IsInf(f, 0) {
		if f >= -(1<<63) && f < 1<<63 {
			return intKey(int64(f))
		}
		b, _ := new(big.Float).SetFloat64(f).Int(nil)
		return idxKey{big: b, canon: canon{kind: 'b', s: b.String()}}
	}
	return idxKey{f: f, canon: canon{kind: 'f', n: int64(math.Float64bits(f))}}
}

// bigFloat returns the exact value of a numeric key.
func (k idxKey) bigFloat() *big.Float {
	switch {
	case k.isInt:
		return new(big.Float).SetInt64(k.i)
	case k.big != nil:
		return new(big.Float).SetInt(k.big)
	}
	return new(big.Float).SetFloat64(k.f)
}

// compareKeys orders two keys as Python's < does. ok is false when Python raises
// TypeError (a str compared with a number).
func compareKeys(a, b idxKey) (c int, ok bool) {
	if a.str != b.str {
		return 0, false
	}
	if a.str {
		switch {
		case a.s < b.s:
			return -1, true
		case a.s > b.s:
			return 1, true
		}
		return 0, true
	}
	if a.isInt && b.isInt {
		switch {
		case a.i < b.i:
			return -1, true
		case a.i > b.i:
			return 1, true
		}
		return 0, true
	}
	if !a.isInt && a.big == nil && !b.isInt && b.big == nil {
		switch {
		case a.f < b.f:
			return -1, true
		case a.f > b.f:
			return 1, true
		}
		return 0, true
	}
	return a.bigFloat().Cmp(b.bigFloat()), true
}
