package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/framework/host"
)

// unknownTypePrefix starts host.Lookup's error for a name that no
// package registered.
const unknownTypePrefix = "unknown server type "

// unknownTypeMessage is the problem message for a server type that no
// package of this binary registered: the registered types ("none
// registered" when there are none) and the usual cause, a missing blank
// import in the main package.
func unknownTypeMessage(serverType string, registered []string) string {
	list := "none registered"
	if len(registered) > 0 {
		list = "registered: " + strings.Join(registered, ", ")
	}
	return fmt.Sprintf("unknown server type %q (%s); blank-import the package that calls framework.Register(%q, ...) in your main package (e.g. _ \"example.com/myenvs/servers/%s\")",
		serverType, list, serverType, serverType)
}

// explainProblems rewrites, in place, every unknown-server-type problem of
// ps (host.Lookup's message, as server.New reports it) into
// [unknownTypeMessage]; it returns ps.
func explainProblems(ps config.Problems) config.Problems {
	for i, p := range ps {
		rest, ok := strings.CutPrefix(p.Message, unknownTypePrefix)
		if !ok {
			continue
		}
		var name string
		if _, err := fmt.Sscanf(rest, "%q", &name); err != nil {
			continue
		}
		if _, err := host.Lookup(name); err == nil {
			continue // registered after all: leave the message as it is
		}
		ps[i].Message = unknownTypeMessage(name, host.Names())
	}
	return ps
}

// gymkitBinHint rewrites, in place, every unknown-server-type problem of ps
// (as explainProblems leaves it) for serve --nemo run by an app.py while
// GYMKIT_BIN is set (bin, "" when unset): every gymkit app.py then runs that
// one binary, so the usual fix (a blank import) is not the first one.
func gymkitBinHint(ps config.Problems, bin string) {
	if bin == "" {
		return
	}
	for i, p := range ps {
		rest, ok := strings.CutPrefix(p.Message, unknownTypePrefix)
		if !ok {
			continue
		}
		var name string
		if _, err := fmt.Sscanf(rest, "%q", &name); err != nil {
			continue
		}
		list := "none registered"
		if names := host.Names(); len(names) > 0 {
			list = "registered: " + strings.Join(names, ", ")
		}
		ps[i].Message = fmt.Sprintf("unknown server type %q (%s); GYMKIT_BIN=%s is set, and every gymkit app.py runs that binary when it is: "+
			"unset GYMKIT_BIN so that each environment's app.py runs its own module's binary, or set it to a binary whose main package "+
			"blank-imports the package that calls framework.Register(%q, ...) (docs/nemo.md)", name, list, bin, name)
	}
}

// writeTypes prints the registered server types one per line, or one line
// saying that none is registered and why.
func writeTypes(w io.Writer, names []string) {
	if len(names) == 0 {
		fmt.Fprintln(w, "no server type is registered in this binary: its main package blank-imports no package that calls framework.Register (e.g. _ \"example.com/myenvs/servers/my_env\")")
		return
	}
	for _, name := range names {
		fmt.Fprintln(w, name)
	}
}
