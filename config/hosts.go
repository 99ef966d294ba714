package config

import (
	"fmt"
	"net"
	"strings"
)

// hostProblem returns what is wrong with a host (an instance's host or default_host) and the
// host to write instead, or "" when it is a host name or an IP address net.Listen takes.
// Brackets, a port and characters no host name holds are refused here, before any port is
// probed: net.Listen would otherwise fail on every port alike, and NeMo's uvicorn on the same
// value.
func hostProblem(h string) (msg, suggestion string) {
	switch {
	case h == "":
		return "", ""
	case strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") && isIP(h[1:len(h)-1]):
		return fmt.Sprintf("%q: write an IPv6 address without brackets (the URLs gymkit prints add them)", h), h[1 : len(h)-1]
	case isIP(h):
		return "", ""
	}
	if host, port, err := net.SplitHostPort(h); err == nil {
		return fmt.Sprintf("%q holds a port: the host is %q, the port goes in port (%s)", h, host, port), host
	}
	if !isHostName(h) {
		return fmt.Sprintf("%q is not a host name or an IP address", h), ""
	}
	return "", ""
}

// isIP reports an IP address, an IPv6 one with a zone (fe80::1%eth0) too.
func isIP(s string) bool {
	addr, _, _ := strings.Cut(s, "%")
	return net.ParseIP(addr) != nil && (addr == s || strings.Contains(addr, ":"))
}

// isHostName reports a DNS name: dot-separated labels of 1 to 63 ASCII letters, digits, '-'
// and '_', not starting or ending with '-', at most 253 bytes (a final dot allowed).
func isHostName(s string) bool {
	s = strings.TrimSuffix(s, ".")
	if s == "" || len(s) > 253 {
		return false
	}
	for label := range strings.SplitSeq(s, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, c := range []byte(label) {
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}
