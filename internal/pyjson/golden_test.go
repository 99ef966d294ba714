package pyjson

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"testing"
)

// The golden files are written by testdata/gen_cpython.py under CPython 3.13.

type parseGolden struct {
	In      string  `json:"in"`
	Msg     *string `json:"msg"`
	Pos     int     `json:"pos"`
	Exc     string  `json:"exc"`
	Repr    *string `json:"repr"`
	Dumps   *string `json:"dumps"`
	Compact *string `json:"compact"`
	Indent  *string `json:"indent"`
}

func readGolden[T any](t *testing.T, name string) []T {
	t.Helper()
	out, err := loadGolden[T](name)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func loadGolden[T any](name string) ([]T, error) {
	f, err := os.Open("testdata/" + name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	var out []T
	first := true
	for sc.Scan() {
		if first { // {"python": version}
			first = false
			continue
		}
		var x T
		if err := json.Unmarshal(sc.Bytes(), &x); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out = append(out, x)
	}
	return out, sc.Err()
}

func TestGoldenCPythonParse(t *testing.T) {
	t.Parallel()
	cases := readGolden[parseGolden](t, "cpython_parse.jsonl")
	if len(cases) < 1000 {
		t.Fatalf("only %d golden cases", len(cases))
	}
	for _, c := range cases {
		in, err := hex.DecodeString(c.In)
		if err != nil {
			t.Fatal(err)
		}
		v, err := Parse(in)
		valid := Valid(in)
		if valid != (err == nil) {
			t.Errorf("%q: Valid=%v but Parse err=%v", in, valid, err)
		}
		switch {
		case c.Msg != nil:
			var se *SyntaxError
			if !errors.As(err, &se) || se.Msg != *c.Msg || se.Pos != c.Pos {
				t.Errorf("%q: got %v (%#v), want %s at %d", in, err, se, *c.Msg, c.Pos)
			}
		case c.Exc != "":
			var want error
			switch c.Exc {
			case "UnicodeDecodeError":
				want = ErrInvalidUTF8
			case "ValueError":
				want = ErrIntTooLong
			case "RecursionError":
				want = ErrTooDeep
			}
			if !errors.Is(err, want) {
				t.Errorf("%q: got %v, want %s", in, err, c.Exc)
			}
		default:
			if err != nil {
				t.Errorf("%q: unexpected error %v", in, err)
				continue
			}
			if got := Repr(v); got != *c.Repr {
				t.Errorf("%q: Repr\n got %s\nwant %s", in, got, *c.Repr)
			}
			checkDump(t, in, v, PythonDumps, c.Dumps)
			checkDump(t, in, v, Python, c.Compact)
			ind := Options{Floats: PythonFloats, NaN: NaNLiteral, Indent: 2}
			checkDump(t, in, v, ind, c.Indent)
		}
	}
}

func checkDump(t *testing.T, in []byte, v Value, o Options, want *string) {
	t.Helper()
	if want == nil {
		return
	}
	b, err := Marshal(v, o)
	got := string(b)
	if err != nil {
		got = "ValueError: " + err.Error()
	}
	if got != *want {
		t.Errorf("%q: Marshal(%+v)\n got %s\nwant %s", in, o, got, *want)
	}
}

func TestGoldenCPythonFloatRepr(t *testing.T) {
	t.Parallel()
	type floatGolden struct {
		Bits uint64 `json:"bits"`
		Repr string `json:"repr"`
	}
	cases := readGolden[floatGolden](t, "cpython_floats.jsonl")
	if len(cases) < 2000 {
		t.Fatalf("only %d golden floats", len(cases))
	}
	for _, c := range cases {
		f := math.Float64frombits(c.Bits)
		if got := string(AppendFloat(nil, f, 64, PythonFloats)); got != c.Repr {
			t.Errorf("%v: PythonFloats got %s want %s", f, got, c.Repr)
		}
		// pydantic's zmij layout of the same shortest digits.
		got := string(AppendFloat(nil, f, 64, PydanticFloats))
		if want := zmijFromRepr(c.Repr); got != want {
			t.Errorf("%v: PydanticFloats got %s want %s", f, got, want)
		}
		if back, err := strconv.ParseFloat(got, 64); err != nil || back != f {
			t.Errorf("%v: %s does not round-trip (%v, %v)", f, got, back, err)
		}
	}
}

// zmijFromRepr derives zmij's text from Python's repr, an independent path:
// both hold the same shortest digits, only the layout differs.
func zmijFromRepr(r string) string {
	neg := false
	if r[0] == '-' {
		neg, r = true, r[1:]
	}
	// Split into digits and the exponent of the first digit.
	mant, exp := r, 0
	for i := 0; i < len(r); i++ {
		if r[i] == 'e' {
			mant = r[:i]
			exp, _ = strconv.Atoi(r[i+1:])
			break
		}
	}
	digits := ""
	point := -1
	for i := 0; i < len(mant); i++ {
		if mant[i] == '.' {
			point = i
			continue
		}
		digits += mant[i : i+1]
	}
	if point < 0 {
		point = len(mant)
	}
	exp += point - 1
	// Strip leading zeros (0.001) and trailing zeros (100.0).
	for len(digits) > 1 && digits[0] == '0' {
		digits = digits[1:]
		exp--
	}
	for len(digits) > 1 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
	}
	if digits == "0" {
		exp = 0
	}
	var out string
	switch {
	case exp >= -5 && exp <= 15 && exp < 0:
		out = "0."
		for k := 0; k < -exp-1; k++ {
			out += "0"
		}
		out += digits
	case exp >= -5 && exp <= 15 && len(digits)-1 <= exp:
		out = digits
		for k := 0; k < exp-(len(digits)-1); k++ {
			out += "0"
		}
		out += ".0"
	case exp >= -5 && exp <= 15:
		out = digits[:exp+1] + "." + digits[exp+1:]
	default:
		out = digits[:1]
		if len(digits) > 1 {
			out += "." + digits[1:]
		}
		if exp < 0 {
			out += "e-" + strconv.Itoa(-exp)
		} else {
			out += "e+" + strconv.Itoa(exp)
		}
	}
	if neg {
		out = "-" + out
	}
	return out
}
