package config

import (
	"fmt"
	"slices"
	"strings"
)

// overrideInstanceProblems refuses every override that reaches into the
// resources_servers block of an instance the files do not have
// ("guess_numbr.resources_servers.guess_number.max_guesses=3"): such an
// override would create a new instance without a domain and the user would
// see "domain is required" instead of the typo. The problem names the
// closest instance of the files. Overrides of other top-level keys
// (default_host, head_server.port, variables) are not checked; with no file
// layer (a config made of overrides only) nothing is checked.
func overrideInstanceProblems(overrides []string, files []*layer) []Problem {
	files = slices.DeleteFunc(files, func(l *layer) bool { return l == nil })
	if len(files) == 0 {
		return nil
	}
	top := map[string]bool{}
	var instances []string
	for _, l := range files {
		for k, v := range l.ko.Raw() {
			top[k] = true
			if m, ok := v.(map[string]any); ok {
				if _, ok := m[typeResources]; ok && !slices.Contains(instances, k) {
					instances = append(instances, k)
				}
			}
		}
	}
	slices.Sort(instances)
	var ps []Problem
	for _, arg := range overrides {
		key, _, err := parseOverride(arg)
		if err != nil {
			continue // loadOverrides reported it
		}
		segs := strings.Split(key, ".")
		if len(segs) < 2 || segs[1] != typeResources || top[segs[0]] {
			continue
		}
		list := "the files have no resources-server instance"
		if len(instances) > 0 {
			list = "its instances: " + strings.Join(instances, ", ")
		}
		ps = append(ps, Problem{File: commandLine, Key: key,
			Message:    fmt.Sprintf("no instance %s in the config (%s)", segs[0], list),
			Suggestion: suggest(segs[0], instances)})
	}
	return ps
}
