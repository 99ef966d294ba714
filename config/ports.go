package config

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
	"syscall"
)

// maxPortAttempts is how many free-looking ports are probed per instance (NeMo's max_retries).
const maxPortAttempts = 50

// AssignPorts gives every instance without a port (0) a free port, as NeMo does: a random port
// in [port_range_low, port_range_high] (default 10001-20000) that is not in disallowed_ports,
// not the head server's port (head_server.port, default 11000; none when it is null), not
// configured on any instance or skipped agent/model block, not already assigned, and for which
// probe(host, port) returns nil. Up to 50 ports are probed per instance.
//
// probe returns nil when host:port can be listened on, and else why not. An error that says the
// port is taken or not allowed (EADDRINUSE, EACCES: see [PortTaken]) moves on to another port;
// any other error (a host name that does not resolve, an address that is not this machine's)
// is about the host, and stops the search at once with a problem quoting it. probe nil means
// net.Listen("tcp", host:port), closed again. A caller that wants no window between the probe
// and the bind can pass a probe that keeps the listener it opened. Instances are handled in
// name order; ports already set are kept, so a second call changes nothing.
//
// The error is [Problems], one per instance left without a port.
func (c *Config) AssignPorts(probe func(host string, port int) error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if probe == nil {
		probe = listenProbe
	}
	taken := map[int]bool{}
	for _, p := range c.avoid {
		taken[p] = true
	}
	for _, inst := range c.instances {
		taken[inst.Port] = true
	}
	var ps Problems
	for i := range c.instances {
		inst := &c.instances[i]
		if inst.Port != 0 {
			continue
		}
		var free []int
		for p := c.portLow; p <= c.portHigh; p++ {
			if !taken[p] {
				free = append(free, p)
			}
		}
		tried := 0
		var hostErr error
		for ; tried < maxPortAttempts && len(free) > 0; tried++ {
			j := rand.IntN(len(free))
			p := free[j]
			free[j] = free[len(free)-1]
			free = free[:len(free)-1]
			err := probe(inst.Host, p)
			if err == nil {
				taken[p] = true
				inst.Port = p
				break
			}
			if !PortTaken(err) {
				hostErr = err // about the host: no other port would do
				break
			}
			taken[p] = true // not bindable: skip it for the other instances too
		}
		switch {
		case inst.Port != 0:
		case hostErr != nil:
			ps = append(ps, inst.src.problem(joinKey(inst.Path(), "host"), fmt.Sprintf(
				"cannot listen on host %s: %v", inst.Host, hostErr), ""))
		default:
			ps = append(ps, inst.src.problem(inst.Path()+".port", fmt.Sprintf(
				"no free port for host %s in [%d, %d] (port_range_low, port_range_high) after %d attempts, avoiding disallowed_ports, the head server's port and the ports of other servers",
				inst.Host, c.portLow, c.portHigh, tried), ""))
		}
	}
	return ps.err()
}

// PortTaken reports whether err, a failure to listen on a host and port, is about the port
// (another socket holds it: EADDRINUSE; this process may not use it: EACCES), so that another
// port of the same host may do, rather than about the host.
func PortTaken(err error) bool {
	return errors.Is(err, syscall.EADDRINUSE) || errors.Is(err, syscall.EACCES)
}

// listenProbe is nil when host:port can be listened on right now, else why not.
func listenProbe(host string, port int) error {
	ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return err
	}
	return ln.Close()
}
