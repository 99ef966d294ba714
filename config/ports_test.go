package config

import (
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

func always(string, int) error { return nil }

func TestAssignPorts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		extra  string
		blocks string
		want   map[string][]int // instance -> acceptable ports
	}{
		{"default range", "", server("a"), nil},
		{"configured port kept", "", server("a", "port: 4242"), map[string][]int{"a": {4242}}},
		{"disallowed ports avoided", "port_range_low: 13000\nport_range_high: 13003\ndisallowed_ports: [13000, 13001, 13003]\n", server("a"), map[string][]int{"a": {13002}}},
		{"head server default port avoided", "port_range_low: 11000\nport_range_high: 11001\n", server("a"), map[string][]int{"a": {11001}}},
		{"head server port avoided", "port_range_low: 11000\nport_range_high: 11001\nhead_server: {port: 11001}\n", server("a"), map[string][]int{"a": {11000}}},
		{"null head server port avoids nothing", "port_range_low: 11000\nport_range_high: 11000\nhead_server: {port: null}\n", server("a"), map[string][]int{"a": {11000}}},
		{"configured ports avoided", "port_range_low: 14000\nport_range_high: 14002\n", server("a", "port: 14001") + server("b") + server("c"),
			map[string][]int{"a": {14001}, "b": {14000, 14002}, "c": {14000, 14002}}},
		{"interpolated range", "range: {low: 15000, high: 15000}\nport_range_low: ${range.low}\nport_range_high: ${range.high}\n", server("a"), map[string][]int{"a": {15000}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := writeDir(t, map[string]string{"c.yaml": tt.extra + tt.blocks})
			c := mustLoad(t, opts(dir, []string{"c.yaml"}))
			if err := c.AssignPorts(always); err != nil {
				t.Fatal(err)
			}
			used := map[int]string{}
			for _, inst := range c.Instances() {
				if other, dup := used[inst.Port]; dup {
					t.Errorf("%s and %s share port %d", inst.Name, other, inst.Port)
				}
				used[inst.Port] = inst.Name
				ok := inst.Port >= DefaultPortRangeLow && inst.Port <= DefaultPortRangeHigh && inst.Port != DefaultHeadServerPort
				if acceptable, listed := tt.want[inst.Name]; listed {
					ok = false
					for _, p := range acceptable {
						ok = ok || p == inst.Port
					}
				}
				if !ok {
					t.Errorf("%s got port %d, want one of %v", inst.Name, inst.Port, tt.want[inst.Name])
				}
			}
			// A second call keeps the ports.
			before := c.Instances()
			if err := c.AssignPorts(func(string, int) error { t.Error("probe called again"); return syscall.EADDRINUSE }); err != nil {
				t.Fatal(err)
			}
			for i, inst := range c.Instances() {
				if inst.Port != before[i].Port {
					t.Errorf("%s moved from %d to %d", inst.Name, before[i].Port, inst.Port)
				}
			}
		})
	}
}

func TestAssignPortsProbes(t *testing.T) {
	t.Parallel()
	dir := writeDir(t, map[string]string{"c.yaml": "port_range_low: 16000\nport_range_high: 16009\n" + server("a", "host: 10.9.9.9")})
	c := mustLoad(t, opts(dir, []string{"c.yaml"}))
	var mu sync.Mutex
	probed := map[int]bool{}
	err := c.AssignPorts(func(host string, port int) error {
		mu.Lock()
		defer mu.Unlock()
		if host != "10.9.9.9" || probed[port] {
			t.Errorf("probe(%s, %d): wrong host or probed twice", host, port)
		}
		probed[port] = true
		if port == 16007 {
			return nil
		}
		return &net.OpError{Op: "listen", Net: "tcp", Err: os.NewSyscallError("bind", syscall.EADDRINUSE)}
	})
	if err != nil {
		t.Fatal(err)
	}
	if inst, _ := c.Instance("a"); inst.Port != 16007 {
		t.Errorf("port %d, want 16007 (the only bindable one)", inst.Port)
	}

	// Nothing bindable: a problem naming the instance's port key.
	c = mustLoad(t, opts(dir, []string{"c.yaml"}))
	ps := problemsOf(t, c.AssignPorts(func(string, int) error { return syscall.EACCES }))
	if p := findProblem(t, ps, "a.resources_servers.a.port"); !strings.Contains(p.Message, "no free port for host 10.9.9.9 in [16000, 16009]") || p.File != "c.yaml" {
		t.Errorf("problem = %v", p)
	}
}

func TestAssignPortsDefaultProbe(t *testing.T) {
	t.Parallel()
	// Occupy one port of a two-port range; the default probe must pick the other.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skip("cannot listen:", err)
	}
	defer ln.Close()
	busy := ln.Addr().(*net.TCPAddr).Port
	if busy >= 65535 {
		t.Skip("no port above the busy one")
	}
	dir := writeDir(t, map[string]string{"c.yaml": "port_range_low: " + strconv.Itoa(busy) + "\nport_range_high: " + strconv.Itoa(busy+1) + "\n" + server("a")})
	c := mustLoad(t, opts(dir, []string{"c.yaml"}))
	err = c.AssignPorts(nil)
	inst, _ := c.Instance("a")
	switch {
	case err != nil:
		// busy+1 may be taken by another process; then the problem is the right answer.
		problemsOf(t, err)
	case inst.Port != busy+1:
		t.Errorf("port %d, want %d (%d is busy)", inst.Port, busy+1, busy)
	}
}
