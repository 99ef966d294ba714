package cli

import (
	"bytes"
	"testing"
)

// A server type no package registered names the registered ones ("none
// registered" when the binary imports no environment) and the usual cause:
// the main package's missing blank import.
func TestUnknownTypeMessage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		serverType string
		registered []string
		want       string
	}{
		{"none registered", "guess_number", nil,
			`unknown server type "guess_number" (none registered); blank-import the package that calls framework.Register("guess_number", ...) in your main package (e.g. _ "example.com/myenvs/servers/guess_number")`},
		{"some registered", "guess_number", []string{"a_env", "b_env"},
			`unknown server type "guess_number" (registered: a_env, b_env); blank-import the package that calls framework.Register("guess_number", ...) in your main package (e.g. _ "example.com/myenvs/servers/guess_number")`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := unknownTypeMessage(tc.serverType, tc.registered); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// gymkit types prints one name a line, or one line saying none is registered.
func TestWriteTypes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		names []string
		want  string
	}{
		{"none", nil, "no server type is registered in this binary: its main package blank-imports no package that calls framework.Register (e.g. _ \"example.com/myenvs/servers/my_env\")\n"},
		{"two", []string{"a_env", "b_env"}, "a_env\nb_env\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var b bytes.Buffer
			writeTypes(&b, tc.names)
			if b.String() != tc.want {
				t.Errorf("got %q, want %q", b.String(), tc.want)
			}
		})
	}
}
