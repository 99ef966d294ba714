// Package buildinfo reports the gymkit module version built into the running
// binary, for gymkit --version and the MCP initialize answer's
// serverInfo.version. It works both when gymkit is the main module (the
// gymkit binary, go test in the checkout) and when it is a dependency of a
// user's binary (cli.Main in example.com/myenvs).
//
//	fmt.Println(buildinfo.Version()) // v0.4.0, v0.0.0-20261201231400-8a76ac9abcde, or (devel)
package buildinfo

import (
	"runtime/debug"
	"sync"
)

// Module is gymkit's module path.
const Module = "github.com/gymkit/gymkit"

// Info is what the build info says about gymkit in this binary.
type Info struct {
	// Version is gymkit's module version: the main module's version when
	// gymkit is the main module (with Go 1.24+ a pseudo-version from the
	// VCS, "+dirty" when modified), else the required version of the
	// dependency (a replaced dependency keeps the version it replaces, or
	// "(devel)" for a local replace without one). "(devel)" when unknown.
	Version string
	// Replace is the replacement's path when gymkit is a replaced
	// dependency (a local checkout: "../gymkit"); "" otherwise.
	Replace string
	// Main is the main module's path and version when gymkit is a
	// dependency ("example.com/myenvs (devel)"); "" when gymkit is the main
	// module.
	Main string
	// Revision and Modified are the VCS revision of the main module's
	// checkout (vcs.revision, vcs.modified) when the binary was built from
	// one; "" and false otherwise.
	Revision string
	Modified bool
}

// Read returns gymkit's build information; it is computed once.
var Read = sync.OnceValue(func() Info {
	in := Info{Version: "(devel)"}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return in
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			in.Revision = s.Value
		case "vcs.modified":
			in.Modified = s.Value == "true"
		}
	}
	if bi.Main.Path == Module {
		if bi.Main.Version != "" {
			in.Version = bi.Main.Version
		}
		return in
	}
	in.Main = bi.Main.Path
	if bi.Main.Version != "" {
		in.Main += " " + bi.Main.Version
	}
	for _, m := range bi.Deps {
		if m.Path != Module {
			continue
		}
		if m.Version != "" {
			in.Version = m.Version
		}
		if m.Replace != nil {
			in.Replace = m.Replace.Path
			if m.Replace.Version != "" {
				in.Version = m.Replace.Version
			}
		}
	}
	return in
})

// Version is Read().Version: gymkit's module version, "(devel)" when unknown.
func Version() string { return Read().Version }
