package config

import (
	"errors"
	"testing"
)

func TestHostProblem(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ host, msg, sug string }{
		{"", "", ""},
		{"127.0.0.1", "", ""},
		{"0.0.0.0", "", ""},
		{"::1", "", ""},
		{"fe80::1%eth0", "", ""},
		{"localhost", "", ""},
		{"my-host_1.example.com.", "", ""},
		{"[::1]", `"[::1]": write an IPv6 address without brackets (the URLs gymkit prints add them)`, "::1"},
		{"127.0.0.1:80", `"127.0.0.1:80" holds a port: the host is "127.0.0.1", the port goes in port (80)`, "127.0.0.1"},
		{"[::1]:80", `"[::1]:80" holds a port: the host is "::1", the port goes in port (80)`, "::1"},
		{"a b", `"a b" is not a host name or an IP address`, ""},
		{"-x.com", `"-x.com" is not a host name or an IP address`, ""},
		{"a..b", `"a..b" is not a host name or an IP address`, ""},
		{"1.2.3.4%eth0", `"1.2.3.4%eth0" is not a host name or an IP address`, ""},
	} {
		if msg, sug := hostProblem(tc.host); msg != tc.msg || sug != tc.sug {
			t.Errorf("hostProblem(%q) = %q, %q; want %q, %q", tc.host, msg, sug, tc.msg, tc.sug)
		}
	}
}

// An error about the host stops the search at once, with one problem at host quoting it.
func TestAssignPortsHostError(t *testing.T) {
	t.Parallel()
	dir := writeDir(t, map[string]string{"c.yaml": server("a", "host: nowhere.invalid")})
	c := mustLoad(t, opts(dir, []string{"c.yaml"}))
	probes := 0
	ps := problemsOf(t, c.AssignPorts(func(string, int) error {
		probes++
		return errors.New("lookup nowhere.invalid: no such host")
	}))
	p := findProblem(t, ps, "a.resources_servers.a.host")
	if probes != 1 || p.Message != "cannot listen on host nowhere.invalid: lookup nowhere.invalid: no such host" || p.File != "c.yaml" {
		t.Errorf("%d probes, problem %v", probes, p)
	}
}
