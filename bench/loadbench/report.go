package loadbench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gymkit/gymkit/mcpexpose"
	"github.com/gymkit/gymkit/rollout"
)

// ---- weather: the 1st call against the Nth ----

type weatherResult struct {
	first, last       []time.Duration // per rollout: call 1 and call N
	firstTen, lastTen []time.Duration // per rollout: mean of calls 1-10 and N-9..N
	errors            int
	firstErr          string
}

// weather runs WeatherRollouts rollouts of WeatherCalls get_weather calls
// per door and round, one call at a time (latency is then the server's
// cost plus a constant loopback round trip).
func (d *driver) weather(ctx context.Context) map[string]weatherResult {
	p := d.procs[KindWeather]
	hc := newClient(1)
	defer hc.CloseIdleConnections()
	out := map[string]weatherResult{}
	doors := []string{"HTTP", "MCP"}
	n := d.cfg.WeatherCalls
	for r := range d.cfg.Rounds {
		order := slices.Clone(doors)
		if r%2 == 1 {
			slices.Reverse(order)
		}
		for _, door := range order {
			res := out[door]
			for range d.cfg.WeatherRollouts {
				cookie, token, err := seed(ctx, hc, p.url, `{}`)
				if err != nil {
					res.errors++
					res.firstErr = err.Error()
					continue
				}
				lat := make([]time.Duration, 0, n)
				for i := range n {
					t := time.Now()
					if door == "HTTP" {
						_, err = expect(ctx, hc, p.url+"/get_weather", `{"city":"Paris"}`, map[string]string{"Cookie": cookie}, "sunny")
					} else {
						_, err = expect(ctx, hc, p.url+mcpexpose.URLPath, mcpCall(i+2, "get_weather", `{"city":"Paris"}`),
							mcpHeaders(mcpexpose.TokenHeader, token), "sunny")
					}
					if err != nil {
						res.errors++
						res.firstErr = err.Error()
						break
					}
					lat = append(lat, time.Since(t))
				}
				if len(lat) == n {
					k := min(10, n)
					res.first = append(res.first, lat[0])
					res.last = append(res.last, lat[n-1])
					res.firstTen = append(res.firstTen, mean(lat[:k]))
					res.lastTen = append(res.lastTen, mean(lat[n-k:]))
				}
			}
			out[door] = res
			d.logf("weather %s round %d: %d rollouts", door, r+1, len(res.first))
		}
	}
	return out
}

func mean(xs []time.Duration) time.Duration {
	var s time.Duration
	for _, x := range xs {
		s += x
	}
	return s / time.Duration(max(len(xs), 1))
}

// ---- rollouts over both doors (package rollout) ----

type rolloutResult struct {
	rates    []float64
	errors   int
	firstErr string
	total    int
}

// rollouts replays the workplace example rows (RolloutRepeats repeats) with
// rollout.Run over each door, alternating, and measures rollouts/s.
func (d *driver) rollouts(ctx context.Context) map[string]rolloutResult {
	p := d.procs[KindWorkplace]
	dir, err := os.MkdirTemp("", "loadbench-rollout-")
	out := map[string]rolloutResult{}
	if err != nil {
		out["HTTP"] = rolloutResult{errors: 1, firstErr: err.Error()}
		return out
	}
	defer os.RemoveAll(dir)
	input := filepath.Join(d.cfg.Root, "..", "shared", "data", "nemo-gym", "workplace_assistant", "example.jsonl")
	doors := []rollout.Door{rollout.DoorHTTP, rollout.DoorMCP}
	for r := range d.cfg.Rounds {
		order := slices.Clone(doors)
		if r%2 == 1 {
			slices.Reverse(order)
		}
		for _, door := range order {
			name := strings.ToUpper(string(door))
			res := out[name]
			hc := newClient(rollout.DefaultConcurrency)
			t := time.Now()
			sum, err := rollout.Run(ctx, rollout.Options{
				Input: input, Output: filepath.Join(dir, fmt.Sprintf("%s-%d.jsonl", door, r)),
				URL: p.url, Door: door, Instance: "workplace_assistant", NumRepeats: d.cfg.RolloutRepeats,
				HTTPClient: hc, Warn: io.Discard,
			})
			el := time.Since(t)
			hc.CloseIdleConnections()
			switch {
			case err != nil || sum == nil:
				res.errors++
				res.firstErr = fmt.Sprint(err)
			default:
				res.total += sum.Total
				res.errors += sum.Failed + sum.NotRun
				if len(sum.Failures) > 0 && res.firstErr == "" {
					res.firstErr = sum.Failures[0].Class + ": " + sum.Failures[0].Error
				}
				res.rates = append(res.rates, float64(sum.Succeeded)/el.Seconds())
			}
			out[name] = res
			if sum != nil {
				d.logf("rollouts %s round %d: %d in %v", name, r+1, sum.Total, el.Round(time.Millisecond))
			}
		}
	}
	return out
}

// ---- the report ----

type agg struct {
	rate                 float64
	p50, p99, cpu, dcpu  time.Duration
	calls, errors        int
	firstErr             string
	gorBefore, gorAfter  int
	threads, fds, rounds int
}

func aggregate(pts []point) agg {
	var a agg
	var rates []float64
	var p50, p99, cpu, dcpu []time.Duration
	for _, p := range pts {
		rates = append(rates, p.rate())
		p50 = append(p50, pct(p.lat, 50))
		p99 = append(p99, pct(p.lat, 99))
		cpu = append(cpu, p.cpuPerCall())
		if p.calls > 0 {
			dcpu = append(dcpu, p.driverCPU/time.Duration(p.calls))
		}
		a.calls += p.calls
		a.errors += p.errors
		if a.firstErr == "" {
			a.firstErr = p.firstErr
		}
		a.gorBefore, a.gorAfter = max(a.gorBefore, p.gorBefore), max(a.gorAfter, p.gorAft)
		a.threads, a.fds = max(a.threads, p.threads), max(a.fds, p.fds)
	}
	a.rate, a.p50, a.p99, a.cpu, a.dcpu, a.rounds = median(rates), median(p50), median(p99), median(cpu), median(dcpu), len(pts)
	return a
}

func us(d time.Duration) string { return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond)) }

func (d *driver) report(scens []scenario, res map[string]map[int][]point, weather map[string]weatherResult, rollouts map[string]rolloutResult) error {
	var b strings.Builder
	pin := "not pinned"
	if d.pinned {
		pin = "each target pinned to CPU 0 (taskset -c 0), the driver to CPU 1"
	}
	fmt.Fprintf(&b, "## loadbench %s\n\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	fmt.Fprintf(&b, "%d CPUs, %s/%s, %s; %s; %v per point, medians of %d alternated rounds; "+
		"1-minute load average %s at the start, %s at the end (other work on the machine shows here).\n\n",
		runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version(), pin, d.cfg.Duration, d.cfg.Rounds,
		d.loadStart, loadavg())
	b.WriteString("| scenario | clients | calls/s | p50 | p99 | server CPU/call | driver CPU/call | errors | goroutines before → after | threads | fds |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|\n")
	get := func(name string, c int) (agg, bool) {
		pts := res[name][c]
		if len(pts) == 0 {
			return agg{}, false
		}
		return aggregate(pts), true
	}
	var problems []string
	for _, s := range scens {
		for _, c := range d.cfg.Clients {
			a, ok := get(s.name, c)
			if !ok {
				continue
			}
			fmt.Fprintf(&b, "| %s | %d | %.0f | %s | %s | %s | %s | %d | %d → %d | %d | %d |\n",
				s.name, c, a.rate, us(a.p50), us(a.p99), us(a.cpu), us(a.dcpu), a.errors, a.gorBefore, a.gorAfter, a.threads, a.fds)
			if a.errors > 0 {
				problems = append(problems, fmt.Sprintf("%s at %d clients: %d errors, first: %s", s.name, c, a.errors, a.firstErr))
			}
		}
	}
	b.WriteString("\n### Ratios against their targets\n\n| ratio | measured | target | |\n|---|---|---|---|\n")
	// ratio writes one row; the verdict only where the target applies
	// (applies false: shown for information).
	ratio := func(label string, v float64, ok bool, target string, met bool, applies ...bool) {
		if !ok {
			fmt.Fprintf(&b, "| %s | n/a | %s | |\n", label, target)
			return
		}
		verdict := "met"
		if !met {
			verdict = "**short**"
		}
		if len(applies) > 0 && !applies[0] {
			verdict = "(target at 32 clients)"
		}
		fmt.Fprintf(&b, "| %s | %.2f | %s | %s |\n", label, v, target, verdict)
	}
	pair := func(x, y string, c int, f func(agg) float64) (float64, bool) {
		ax, ok1 := get(x, c)
		ay, ok2 := get(y, c)
		if !ok1 || !ok2 || f(ay) == 0 {
			return 0, false
		}
		return f(ax) / f(ay), true
	}
	rate := func(a agg) float64 { return a.rate }
	cpu := func(a agg) float64 { return float64(a.cpu) }
	p99 := func(a agg) float64 { return float64(a.p99) }
	p50 := func(a agg) float64 { return float64(a.p50) }
	for _, c := range d.cfg.Clients {
		v, ok := pair(ScenarioGymkitMCP, ScenarioGymkitHTTP, c, rate)
		ratio(fmt.Sprintf("gymkit MCP / HTTP calls/s, %s", clientsText(c)), v, ok, ">= 0.5", v >= 0.5, c == 32)
	}
	for _, c := range d.cfg.Clients {
		v, ok := pair(ScenarioGymkitMCP, ScenarioGymkitHTTP, c, cpu)
		ratio(fmt.Sprintf("gymkit MCP / HTTP server CPU per call, %s", clientsText(c)), v, ok, "<= 2", v <= 2, c == 32)
	}
	for _, c := range d.cfg.Clients {
		v, ok := pair(ScenarioGymkitMCP, ScenarioSDK, c, rate)
		ratio(fmt.Sprintf("gymkit MCP / bare go-sdk calls/s, %s", clientsText(c)), v, ok, ">= 1.5", v >= 1.5, c == 32)
	}
	for _, c := range d.cfg.Clients {
		// The lean path against the go-sdk path of the same door: no
		// target of its own (the targets above are what it is for).
		for _, m := range []struct {
			what string
			f    func(agg) float64
		}{{"calls/s", rate}, {"server CPU per call", cpu}} {
			if v, ok := pair(ScenarioGymkitMCP, ScenarioGymkitMCPSDK, c, m.f); ok {
				fmt.Fprintf(&b, "| gymkit MCP (lean path) / gymkit MCP sdk-only %s, %s | %.2f | (the go-sdk path of the same door) | |\n", m.what, clientsText(c), v)
			}
		}
	}
	for _, c := range d.cfg.Clients {
		v, ok := pair(ScenarioGymkitHTTP, ScenarioChi, c, rate)
		ratio(fmt.Sprintf("gymkit HTTP / bare chi calls/s, %s", clientsText(c)), v, ok, ">= 0.9", v >= 0.9, c == 32)
	}
	for _, c := range d.cfg.Clients {
		v, ok := pair(ScenarioGymkitHTTP, ScenarioChi, c, p99)
		ratio(fmt.Sprintf("gymkit HTTP / bare chi p99, %s", clientsText(c)), v, ok, "<= 1.2", v <= 1.2, c == 32)
	}
	for _, door := range []string{"HTTP", "MCP"} {
		w, ok := weather[door]
		if ok && len(w.first) > 0 {
			v := float64(median(w.last)) / float64(median(w.first))
			ratio(fmt.Sprintf("weather %s: call %d / call 1 latency (medians of %d rollouts, 1 client: %s / %s)",
				door, d.cfg.WeatherCalls, len(w.first), us(median(w.last)), us(median(w.first))), v, true, "<= 1.1", v <= 1.1)
			v = float64(median(w.lastTen)) / float64(median(w.firstTen))
			ratio(fmt.Sprintf("weather %s: last 10 / first 10 calls, mean latency (%s / %s)",
				door, us(median(w.lastTen)), us(median(w.firstTen))), v, true, "<= 1.1", v <= 1.1)
		}
		if w.errors > 0 {
			problems = append(problems, fmt.Sprintf("weather %s: %d errors, first: %s", door, w.errors, w.firstErr))
		}
	}
	for _, c := range []int{1, 32} {
		if !slices.Contains(d.cfg.Clients, c) {
			continue
		}
		v, ok := pair(ScenarioSeedRow, ScenarioSeedEmpty, c, cpu)
		ratio(fmt.Sprintf("workplace seed real row / {} server CPU per seed, %s", clientsText(c)), v, ok, "<= 2", v <= 2)
		v, ok = pair(ScenarioSeedRow, ScenarioSeedEmpty, c, p50)
		ratio(fmt.Sprintf("workplace seed real row / {} p50, %s", clientsText(c)), v, ok, "<= 2", v <= 2)
	}
	if h, m := rollouts["HTTP"], rollouts["MCP"]; len(h.rates) > 0 && len(m.rates) > 0 {
		v := median(m.rates) / median(h.rates)
		ratio(fmt.Sprintf("workplace rollouts/s, MCP / HTTP (rollout.Run, 8 at a time; %.0f/s over MCP, %.0f/s over HTTP)",
			median(m.rates), median(h.rates)), v, true, ">= 0.8", v >= 0.8)
	}
	for _, door := range []string{"HTTP", "MCP"} {
		if r := rollouts[door]; r.errors > 0 {
			problems = append(problems, fmt.Sprintf("rollouts %s: %d failed, first: %s", door, r.errors, r.firstErr))
		}
	}
	b.WriteString("\n### Redis store (session.store: redis; for information)\n\n")
	if d.redisNote != "" {
		fmt.Fprintf(&b, "Skipped: %s.\n", d.redisNote)
	} else {
		b.WriteString("Both replicas of a 2-replica row are pinned to the same core as the 1-replica target: the figures are the cost per call of the store and of a second process, not a speedup. The redis-server is not pinned.\n\n")
		b.WriteString("| ratio | clients | calls/s | server CPU per call |\n|---|---|---|---|\n")
		for _, r := range [][2]string{
			{ScenarioRedisHTTP, ScenarioGymkitHTTP}, {ScenarioRedisHTTP2, ScenarioGymkitHTTP},
			{ScenarioRedisMCP, ScenarioGymkitMCP}, {ScenarioRedisMCP2, ScenarioGymkitMCP},
		} {
			for _, c := range d.cfg.Clients {
				vr, ok1 := pair(r[0], r[1], c, rate)
				vc, ok2 := pair(r[0], r[1], c, cpu)
				if ok1 && ok2 {
					fmt.Fprintf(&b, "| %s / %s | %d | %.2f | %.2f |\n", r[0], r[1], c, vr, vc)
				}
			}
		}
	}
	if c := slices.Max(d.cfg.Clients); c > 1 {
		fmt.Fprintf(&b, "\n### At %d clients\n\n", c)
		for _, s := range scens {
			a, ok := get(s.name, c)
			if !ok {
				continue
			}
			back := "back to its level"
			if a.gorAfter > a.gorBefore {
				back = fmt.Sprintf("**%d above its level** %v after the clients closed their connections", a.gorAfter-a.gorBefore, d.cfg.Settle)
			}
			fmt.Fprintf(&b, "- %s: %d calls, %d errors over %d × %v; goroutines %d before, %d after (%s)\n",
				s.name, a.calls, a.errors, a.rounds, d.cfg.Duration, a.gorBefore, a.gorAfter, back)
		}
	}
	for _, k := range slices.Concat(Kinds, RedisKinds) {
		p := d.procs[k]
		if p == nil {
			continue
		}
		if dbg, err := p.debug(); err == nil && dbg.Errors > 0 {
			problems = append(problems, fmt.Sprintf("target %s logged %d errors, first: %s", k, dbg.Errors, dbg.FirstError))
		}
	}
	if len(problems) > 0 {
		b.WriteString("\n### Errors\n\n")
		for _, p := range problems {
			fmt.Fprintf(&b, "- %s\n", p)
		}
	} else {
		b.WriteString("\nNo errors: every answer had its status and body, every counter its count.\n")
	}
	_, err := io.WriteString(d.cfg.Out, b.String())
	return err
}

func clientsText(c int) string {
	if c == 1 {
		return "1 client"
	}
	return strconv.Itoa(c) + " clients"
}
