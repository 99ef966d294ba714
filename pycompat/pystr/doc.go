// Package pystr is Python's str methods with CPython 3.13's rules (Unicode
// 15.1): the white space str.split() and str.strip() see, the full case
// mappings of str.lower(), str.upper() and str.casefold() (the final sigma,
// İ to "i̇", ß to "SS"), the character classes of str.isdigit() and the
// others, and the \w and \b of the re module.
//
//	pystr.Split(" a\u3000b  c ")  // ["a" "b" "c"]: every Unicode space, as str.split()
//	pystr.Lower("ΟΔΟΣ ΚΑΙ")      // "οδος και": the final sigma
//	pystr.Upper("straße")        // "STRASSE"
//	pystr.IsDigit("²")           // true: str.isdigit() counts superscripts
//	pystr.Repr("it's")           // `"it's"`
//
// Strings are Go strings holding UTF-8; each function reads an invalid
// byte as U+FFFD (a Python str holds code points, never bytes). Positions
// in the results are byte offsets, as everywhere in Go, where Python counts
// code points. Every function is safe for concurrent use.
//
// Go's unicode tables are Unicode 15.0; the code points Unicode 15.1 added
// (U+2FFC-2FFF and U+31EF, symbols; the CJK ideographs U+2EBF0-2EE5D,
// letters) are added here where a function sees them (IsAlpha, IsAlnum,
// IsWordChar, Repr). Unicode 15.1 added no cased, space or digit
// characters.
package pystr
