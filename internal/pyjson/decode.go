package pyjson

import (
	"encoding/binary"
	"unicode/utf8"
)

// decodeText turns body bytes into the text the parser scans, as
// json.loads(bytes) does with s.decode(json.detect_encoding(s),
// "surrogatepass"). The result is UTF-8, or WTF-8 (UTF-8 that may hold
// encoded surrogates) when sur is true; each code point of Python's str is
// one UTF-8 sequence, so character positions can be counted on it.
func decodeText(b []byte) (text []byte, sur bool, err error) {
	switch {
	case len(b) >= 4 && (b[0] == 0xFF && b[1] == 0xFE && b[2] == 0 && b[3] == 0):
		return fromUTF32(b[4:], binary.LittleEndian)
	case len(b) >= 4 && (b[0] == 0 && b[1] == 0 && b[2] == 0xFE && b[3] == 0xFF):
		return fromUTF32(b[4:], binary.BigEndian)
	case len(b) >= 2 && b[0] == 0xFF && b[1] == 0xFE:
		return fromUTF16(b[2:], binary.LittleEndian)
	case len(b) >= 2 && b[0] == 0xFE && b[1] == 0xFF:
		return fromUTF16(b[2:], binary.BigEndian)
	case len(b) >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF:
		b = b[3:]
	case len(b) >= 4:
		if b[0] == 0 {
			if b[1] != 0 {
				return fromUTF16(b, binary.BigEndian)
			}
			return fromUTF32(b, binary.BigEndian)
		}
		if b[1] == 0 {
			if b[2] != 0 || b[3] != 0 {
				return fromUTF16(b, binary.LittleEndian)
			}
			return fromUTF32(b, binary.LittleEndian)
		}
	case len(b) == 2:
		if b[0] == 0 {
			return fromUTF16(b, binary.BigEndian)
		}
		if b[1] == 0 {
			return fromUTF16(b, binary.LittleEndian)
		}
	}
	if utf8.Valid(b) {
		return b, false, nil
	}
	if !validWTF8(b) {
		return nil, false, ErrInvalidUTF8
	}
	return b, true, nil
}

// validWTF8 reports whether b is UTF-8 in which encoded surrogates
// (ED A0..BF 80..BF) are allowed, as Python's utf-8 "surrogatepass" decoder
// accepts.
func validWTF8(b []byte) bool {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			i++
			continue
		}
		if c == 0xED && i+2 < len(b) && b[i+1] >= 0xA0 && b[i+1] <= 0xBF && b[i+2]&0xC0 == 0x80 {
			i += 3
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return false
		}
		i += size
	}
	return true
}

// appendWTF8 appends r, which may be a surrogate, as a 3-byte sequence for
// surrogates and UTF-8 otherwise.
func appendWTF8(dst []byte, r rune) ([]byte, bool) {
	if r >= 0xD800 && r < 0xE000 {
		return append(dst, 0xED, byte(0x80|(r>>6)&0x3F), byte(0x80|r&0x3F)), true
	}
	return utf8.AppendRune(dst, r), false
}

func fromUTF16(b []byte, order binary.ByteOrder) ([]byte, bool, error) {
	if len(b)%2 != 0 {
		return nil, false, ErrInvalidUTF8 // "truncated data"
	}
	out := make([]byte, 0, len(b)/2*3)
	sur := false
	for i := 0; i < len(b); i += 2 {
		r := rune(order.Uint16(b[i:]))
		if r >= 0xD800 && r < 0xDC00 && i+4 <= len(b) {
			if r2 := rune(order.Uint16(b[i+2:])); r2 >= 0xDC00 && r2 < 0xE000 {
				r = 0x10000 + (r-0xD800)<<10 + (r2 - 0xDC00)
				i += 2
			}
		}
		var s bool
		out, s = appendWTF8(out, r)
		sur = sur || s
	}
	return out, sur, nil
}

func fromUTF32(b []byte, order binary.ByteOrder) ([]byte, bool, error) {
	if len(b)%4 != 0 {
		return nil, false, ErrInvalidUTF8 // "truncated data"
	}
	out := make([]byte, 0, len(b)/4*3)
	sur := false
	for i := 0; i < len(b); i += 4 {
		u := order.Uint32(b[i:])
		if u > utf8.MaxRune {
			return nil, false, ErrInvalidUTF8 // "code point not in range(0x110000)"
		}
		var s bool
		out, s = appendWTF8(out, rune(u))
		sur = sur || s
	}
	return out, sur, nil
}
