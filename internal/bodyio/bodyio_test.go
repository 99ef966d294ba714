package bodyio

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
)

func TestReadAll(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("0123456789", 300_000) // 3 MB
	for _, tc := range []struct {
		name     string
		body     string
		declared int64
		reader   func(io.Reader) io.Reader
	}{
		{"empty", "", 0, nil},
		{"empty unknown", "", -1, nil},
		{"small exact", `{"a":1}`, 7, nil},
		{"small unknown", `{"a":1}`, -1, nil},
		{"big exact", big, int64(len(big)), nil},
		{"big unknown", big, -1, nil},
		{"big one byte at a time", big[:200_000], 200_000, iotest.OneByteReader},
		{"big half reads", big, int64(len(big)), iotest.HalfReader},
		{"declared short", big, 1000, nil},
		{"declared long", `{"a":1}`, 1 << 20, nil},
		{"data with EOF", big, int64(len(big)), iotest.DataErrReader},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var r io.Reader = strings.NewReader(tc.body)
			if tc.reader != nil {
				r = tc.reader(r)
			}
			got, err := ReadAll(r, tc.declared)
			if err != nil || string(got) != tc.body {
				t.Fatalf("ReadAll = %d bytes, %v; want %d bytes", len(got), err, len(tc.body))
			}
			if tc.declared == int64(len(tc.body)) && cap(got) != len(got) && len(got) > 0 {
				t.Errorf("a body of its declared length got a buffer of %d for %d bytes", cap(got), len(got))
			}
		})
	}
}

// TestReadAllError: a failing read returns its error with what was read.
func TestReadAllError(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	r := io.MultiReader(strings.NewReader("abc"), iotest.ErrReader(boom))
	got, err := ReadAll(r, 10)
	if !errors.Is(err, boom) || string(got) != "abc" {
		t.Fatalf("ReadAll = %q, %v", got, err)
	}
}

// TestReadAllAllocation: a 14 MiB body with its length declared allocates
// about twice its size in all (1.5x at once) (io.ReadAll: about 6x), and its buffer is
// exactly its size; one of unknown length stays within about 3x.
func TestReadAllAllocation(t *testing.T) {
	body := bytes.Repeat([]byte("1234567,"), 14<<20/8)
	for _, tc := range []struct {
		name     string
		declared int64
		bound    float64
	}{
		{"declared", int64(len(body)), 2.25},
		{"unknown", -1, 3.1},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		got, err := ReadAll(bytes.NewReader(body), tc.declared)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		ratio := float64(after.TotalAlloc-before.TotalAlloc) / float64(len(body))
		t.Logf("%s: %.2fx the body allocated", tc.name, ratio)
		if ratio > tc.bound || len(got) != len(body) {
			t.Errorf("%s: allocated %.2fx the body, want at most %.1fx", tc.name, ratio, tc.bound)
		}
	}
}
