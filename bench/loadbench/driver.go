package loadbench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gymkit/gymkit/mcpexpose"
)

// Config configures [Run].
type Config struct {
	// Target returns the command line and extra environment of a target
	// process serving kind (it must call [ServeTarget] and exit when its
	// standard input closes). Required.
	Target func(kind string) (argv, env []string)
	// Root is the module root (configs, ../shared data). Required.
	Root string
	// Clients are the client counts of the load table; nil means 1, 32
	// and 256.
	Clients []int
	// Duration is the length of one point (one target, one client count,
	// one round); 0 means 2 s.
	Duration time.Duration
	// Rounds is how many alternated rounds each point gets (the table
	// shows their medians); 0 means 3.
	Rounds int
	// Pin pins each target process to core 0 and the driver to core 1
	// with taskset (when there are two cores or more and taskset is
	// found; otherwise nothing is pinned and the report says so).
	Pin bool
	// Scenarios selects load scenarios by name ([ScenarioNames]); nil
	// means all.
	Scenarios []string
	// WeatherRollouts and WeatherCalls size the weather measurement (per
	// door and round): rollouts of WeatherCalls get_weather calls each,
	// one at a time. 0 means 20 and 100; WeatherCalls < 0 skips it.
	WeatherRollouts, WeatherCalls int
	// RolloutRepeats is the repeats of each of the workplace example
	// rows (5 rows) per door and round for the rollout measurement
	// (package rollout, 8 at a time); 0 means 10, negative skips it.
	RolloutRepeats int
	// Settle is how long a point waits, after its clients closed their
	// connections, for the target's goroutines to return to their count
	// before the point; 0 means 3 s. (workplace_assistant's regexp2 match
	// timeouts keep one clock goroutine alive for a while after a search.)
	Settle time.Duration
	// Out receives the report (markdown). Required.
	Out io.Writer
	// Log receives progress lines; nil discards them.
	Log io.Writer
}

// Scenario names, the rows of the load table.
const (
	ScenarioChi        = "bare chi"
	ScenarioGymkitHTTP = "gymkit HTTP"
	ScenarioSDK        = "bare go-sdk"
	ScenarioGymkitMCP  = "gymkit MCP"
	// ScenarioGymkitMCPSDK is gymkit MCP on the go-sdk path (mcp.lean:
	// false): the lean path's baseline in the same run.
	ScenarioGymkitMCPSDK  = "gymkit MCP sdk-only"
	ScenarioWorkplaceHTTP = "workplace HTTP"
	ScenarioWorkplaceMCP  = "workplace MCP"
	ScenarioSeedEmpty     = "workplace seed {}"
	ScenarioSeedRow       = "workplace seed row"
	// The Redis store (session.store: redis) on the counter: one replica,
	// and two replicas of one instance with every client's calls
	// alternating between them (both pinned to the same core, so the
	// figure is the overhead per call, not a speedup). Only with
	// GYMKIT_REDIS_URL; the report says so when they are skipped.
	ScenarioRedisHTTP  = "gymkit HTTP redis"
	ScenarioRedisHTTP2 = "gymkit HTTP redis 2 replicas"
	ScenarioRedisMCP   = "gymkit MCP redis"
	ScenarioRedisMCP2  = "gymkit MCP redis 2 replicas"
)

// ScenarioNames are every load scenario, in table order.
var ScenarioNames = []string{ScenarioChi, ScenarioGymkitHTTP, ScenarioSDK, ScenarioGymkitMCP, ScenarioGymkitMCPSDK,
	ScenarioWorkplaceHTTP, ScenarioWorkplaceMCP, ScenarioSeedEmpty, ScenarioSeedRow,
	ScenarioRedisHTTP, ScenarioRedisHTTP2, ScenarioRedisMCP, ScenarioRedisMCP2}

// proc is a started target process.
type proc struct {
	kind      string
	cmd       *exec.Cmd
	stdin     io.Closer
	url, dbg  string
	pid       int
	stderr    *bytes.Buffer
	waitErr   chan error
	pinnedCPU string
}

// point is one measured (scenario, clients, round).
type point struct {
	calls, errors     int
	firstErr          string
	elapsed           time.Duration
	lat               []time.Duration
	cpu, driverCPU    time.Duration
	gorBefore, gorAft int
	threads, fds      int
}

func (p point) rate() float64 { return float64(p.calls) / p.elapsed.Seconds() }
func (p point) cpuPerCall() time.Duration {
	if p.calls == 0 {
		return 0
	}
	return p.cpu / time.Duration(p.calls)
}

// scenario is one row of the load table.
type scenario struct {
	name       string
	kind       string
	also       string // a second replica's kind ("" for none): its CPU counts too
	maxClients int    // 0: every client count
	// client prepares one client (its rollout); call makes one call and
	// check verifies the rollout's state afterwards (nil: nothing to
	// check).
	client func(ctx context.Context, d *driver, p *proc, hc *http.Client) (call func() error, check func(n int) error, err error)
}

type driver struct {
	cfg    Config
	procs  map[string]*proc
	row    []byte // the first workplace example row
	pinned bool
	// loadStart is /proc/loadavg's 1-minute figure when the run began.
	loadStart string
	// redisNote says why the Redis scenarios were skipped ("" if run).
	redisNote string
	// redisPrefix is the Redis kinds' key prefix for this run.
	redisPrefix string
	logf        func(string, ...any)
	cleanup     []func()
}

// Run starts one process per target kind, measures every scenario at every
// client count in alternated rounds, then the weather call cost, the
// workplace seed and the workplace rollouts over both doors, and writes the
// report to cfg.Out: one table of medians and the ratios against their
// targets. Every answer is checked (status and body); errors are counted and
// reported, not fatal. The error is returned when a target cannot start or
// the report cannot be written.
func Run(ctx context.Context, cfg Config) error {
	if cfg.Clients == nil {
		cfg.Clients = []int{1, 32, 256}
	}
	if cfg.Duration == 0 {
		cfg.Duration = 2 * time.Second
	}
	if cfg.Rounds == 0 {
		cfg.Rounds = 3
	}
	if cfg.WeatherRollouts == 0 {
		cfg.WeatherRollouts = 20
	}
	if cfg.WeatherCalls == 0 {
		cfg.WeatherCalls = 100
	}
	if cfg.RolloutRepeats == 0 {
		cfg.RolloutRepeats = 10
	}
	if cfg.Settle == 0 {
		cfg.Settle = 3 * time.Second
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	d := &driver{cfg: cfg, procs: map[string]*proc{}, loadStart: loadavg(), redisPrefix: "gymkit-loadbench:" + newID() + ":"}
	began := time.Now()
	d.logf = func(f string, a ...any) {
		fmt.Fprintf(cfg.Log, "%6.1fs "+f+"\n", append([]any{time.Since(began).Seconds()}, a...)...)
	}
	defer func() { // stop the targets, in parallel
		var wg sync.WaitGroup
		for _, f := range d.cleanup {
			wg.Go(f)
		}
		wg.Wait()
	}()
	row, err := firstLine(filepath.Join(cfg.Root, "..", "shared", "data", "nemo-gym", "workplace_assistant", "example.jsonl"))
	if err != nil {
		return err
	}
	d.row = row

	scens := d.scenarios()
	kinds := map[string]bool{}
	for _, s := range scens {
		kinds[s.kind] = true
		if s.also != "" {
			kinds[s.also] = true
		}
	}
	kinds[KindWeather] = cfg.WeatherCalls > 0
	kinds[KindWorkplace] = kinds[KindWorkplace] || cfg.RolloutRepeats > 0
	pin := cfg.Pin && runtime.NumCPU() >= 2
	if pin {
		if _, err := exec.LookPath("taskset"); err != nil {
			pin = false
		}
	}
	if pin {
		if err := exec.Command("taskset", "-a", "-p", "-c", "1", strconv.Itoa(os.Getpid())).Run(); err != nil {
			d.logf("cannot pin the driver: %v", err)
			pin = false
		}
	}
	d.pinned = pin
	for _, k := range slices.Concat(Kinds, RedisKinds) {
		if !kinds[k] {
			continue
		}
		p, err := d.start(ctx, k)
		if err != nil {
			return err
		}
		d.procs[k] = p
	}

	res := map[string]map[int][]point{}
	for _, c := range cfg.Clients {
		for r := range cfg.Rounds {
			order := slices.Clone(scens)
			if r%2 == 1 {
				slices.Reverse(order)
			}
			for _, s := range order {
				if s.maxClients > 0 && c > s.maxClients {
					continue
				}
				if ctx.Err() != nil {
					return ctx.Err()
				}
				pt := d.measure(ctx, s, c)
				if res[s.name] == nil {
					res[s.name] = map[int][]point{}
				}
				res[s.name][c] = append(res[s.name][c], pt)
				d.logf("%-20s clients=%-3d round=%d calls/s=%.0f p50=%v p99=%v cpu/call=%v errors=%d",
					s.name, c, r+1, pt.rate(), pct(pt.lat, 50), pct(pt.lat, 99), pt.cpuPerCall(), pt.errors)
			}
		}
	}
	var weather map[string]weatherResult
	if cfg.WeatherCalls > 0 && d.procs[KindWeather] != nil {
		weather = d.weather(ctx)
	}
	var rollouts map[string]rolloutResult
	if cfg.RolloutRepeats > 0 && d.procs[KindWorkplace] != nil {
		rollouts = d.rollouts(ctx)
	}
	return d.report(scens, res, weather, rollouts)
}

func firstLine(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	if !sc.Scan() {
		return nil, fmt.Errorf("loadbench: %s: no row", path)
	}
	return bytes.Clone(sc.Bytes()), nil
}

// start starts the target process of kind and waits for its READY line.
func (d *driver) start(ctx context.Context, kind string) (*proc, error) {
	argv, env := d.cfg.Target(kind)
	p := &proc{kind: kind, stderr: new(bytes.Buffer), waitErr: make(chan error, 1)}
	if d.pinned {
		argv = append([]string{"taskset", "-c", "0"}, argv...)
		p.pinnedCPU = "0"
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	if slices.Contains(RedisKinds, kind) {
		cmd.Env = append(cmd.Env, RedisPrefixEnv+"="+d.redisPrefix)
	}
	cmd.Dir = d.cfg.Root
	cmd.Stderr = &lockedWriter{w: p.stderr}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("loadbench: start %s: %w", kind, err)
	}
	p.cmd, p.stdin, p.pid = cmd, stdin, cmd.Process.Pid
	d.cleanup = append(d.cleanup, func() { p.stop() })
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "READY ") {
				lines <- sc.Text()
			}
		}
		close(lines)
		p.waitErr <- cmd.Wait()
	}()
	select {
	case l, ok := <-lines:
		f := strings.Fields(l)
		if !ok || len(f) != 3 {
			return nil, fmt.Errorf("loadbench: target %s exited before serving: %s", kind, p.stderrText())
		}
		p.url, p.dbg = f[1], f[2]
	case <-time.After(60 * time.Second):
		return nil, fmt.Errorf("loadbench: target %s not ready after 60 s: %s", kind, p.stderrText())
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	d.logf("target %s pid %d at %s (cpu %q)", kind, p.pid, p.url, p.pinnedCPU)
	return p, nil
}

type lockedWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.w.Len() > 1<<16 {
		return len(b), nil
	}
	return l.w.Write(b)
}

func (p *proc) stderrText() string {
	lw := p.cmd.Stderr.(*lockedWriter)
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return strings.TrimSpace(lw.w.String())
}

// stop closes the target's stdin (it drains and exits) and waits for it,
// killing it after 10 s.
func (p *proc) stop() {
	if p.stdin == nil {
		return
	}
	p.stdin.Close()
	p.stdin = nil
	select {
	case <-p.waitErr:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.waitErr
	}
}

// debug reads the target's /debug.
func (p *proc) debug() (Debug, error) {
	var v Debug
	resp, err := http.Get(p.dbg + "/debug")
	if err != nil {
		return v, err
	}
	defer resp.Body.Close()
	return v, json.NewDecoder(resp.Body).Decode(&v)
}

// procCPU is utime+stime of pid (/proc/<pid>/stat, USER_HZ = 100), and its
// thread count.
func procCPU(pid int) (time.Duration, int, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, errors.New("loadbench: bad /proc stat")
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 18 {
		return 0, 0, errors.New("loadbench: short /proc stat")
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	th, _ := strconv.Atoi(f[17])
	return time.Duration(ut+st) * 10 * time.Millisecond, th, nil
}

func procFDs(pid int) int {
	es, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	return len(es)
}

func newClient(n int) *http.Client {
	return &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		MaxIdleConns: 0, MaxIdleConnsPerHost: n + 4, DisableCompression: true, IdleConnTimeout: time.Minute}}
}

// measure runs one point: c clients each prepare their rollout, then call
// for the configured duration; the target's CPU is read around the calls.
func (d *driver) measure(ctx context.Context, s scenario, c int) point {
	p := d.procs[s.kind]
	hc := newClient(c)
	defer hc.CloseIdleConnections()
	var pt point
	if dbg, err := p.debug(); err == nil {
		pt.gorBefore = dbg.Goroutines
	}
	type cl struct {
		call  func() error
		check func(int) error
		lat   []time.Duration
		errs  int
		first string
	}
	clients := make([]*cl, c)
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i := range clients {
		wg.Go(func() {
			call, check, err := s.client(ctx, d, p, hc)
			x := &cl{call: call, check: check}
			if err != nil {
				x.errs, x.first = 1, "prepare: "+err.Error()
			}
			mu.Lock()
			clients[i] = x
			mu.Unlock()
		})
	}
	wg.Wait()
	cpu0, _, _ := procCPU(p.pid)
	var also *proc
	var alsoCPU0 time.Duration
	if s.also != "" {
		also = d.procs[s.also]
		alsoCPU0, _, _ = procCPU(also.pid)
	}
	self0, _, _ := procCPU(os.Getpid())
	start := time.Now()
	deadline := start.Add(d.cfg.Duration)
	for _, x := range clients {
		if x.call == nil {
			continue
		}
		wg.Go(func() {
			x.lat = make([]time.Duration, 0, 1024)
			for time.Now().Before(deadline) && ctx.Err() == nil {
				t := time.Now()
				err := x.call()
				if err != nil {
					if x.errs == 0 {
						x.first = err.Error()
					}
					x.errs++
					continue
				}
				x.lat = append(x.lat, time.Since(t))
			}
		})
	}
	wg.Wait()
	pt.elapsed = time.Since(start)
	cpu1, th, _ := procCPU(p.pid)
	self1, _, _ := procCPU(os.Getpid())
	pt.cpu, pt.driverCPU, pt.threads, pt.fds = cpu1-cpu0, self1-self0, th, procFDs(p.pid)
	if also != nil {
		alsoCPU1, _, _ := procCPU(also.pid)
		pt.cpu += alsoCPU1 - alsoCPU0
	}
	for _, x := range clients {
		if x.check != nil {
			if err := x.check(len(x.lat)); err != nil {
				if x.errs == 0 {
					x.first = "check: " + err.Error()
				}
				x.errs++
			}
		}
		pt.calls += len(x.lat)
		pt.errors += x.errs
		if pt.firstErr == "" {
			pt.firstErr = x.first
		}
		pt.lat = append(pt.lat, x.lat...)
	}
	slices.Sort(pt.lat)
	hc.CloseIdleConnections()
	// Goroutines after: once the idle connections are closed the target
	// should be back at its level before the point.
	for end := time.Now().Add(d.cfg.Settle); ; {
		dbg, err := p.debug()
		if err == nil {
			pt.gorAft = dbg.Goroutines
		}
		if err != nil || dbg.Goroutines <= pt.gorBefore || time.Now().After(end) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	return pt
}

// pct is the q-th percentile of sorted durations (0 if none).
func pct(sorted []time.Duration, q int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := (len(sorted)*q + 99) / 100
	return sorted[min(max(i-1, 0), len(sorted)-1)]
}

// median of xs (0 if none).
func median[T int | float64 | time.Duration](xs []T) T {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// ---- requests ----

const (
	mcpAccept   = "application/json, text/event-stream"
	mcpProtocol = "2025-06-18"
)

// post makes one POST and returns status, headers and body.
func post(ctx context.Context, hc *http.Client, url, body string, hdr map[string]string) (int, http.Header, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return 0, nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b, err
}

// expect makes a POST that must answer 200 with want in its body (and, for
// MCP, no JSON-RPC error and no isError).
func expect(ctx context.Context, hc *http.Client, url, body string, hdr map[string]string, want string) ([]byte, error) {
	st, _, b, err := post(ctx, hc, url, body, hdr)
	if err != nil {
		return nil, err
	}
	if st != http.StatusOK || !bytes.Contains(b, []byte(want)) ||
		bytes.Contains(b, []byte(`"isError":true`)) || bytes.Contains(b, []byte(`"error":{`)) {
		return b, fmt.Errorf("POST %s: %d %.200s (want 200 with %s)", url, st, b, want)
	}
	return b, nil
}

// seed seeds a gymkit (or chi) rollout and returns its cookie and MCP token.
func seed(ctx context.Context, hc *http.Client, base, body string) (cookie, token string, err error) {
	st, hdr, b, err := post(ctx, hc, base+"/seed_session", body, nil)
	if err != nil {
		return "", "", err
	}
	cs := (&http.Response{Header: hdr}).Cookies()
	if st != http.StatusOK || len(cs) != 1 {
		return "", "", fmt.Errorf("seed: %d %q %.200s", st, hdr.Values("Set-Cookie"), b)
	}
	var ans struct {
		MCP struct {
			Headers map[string]string `json:"headers"`
		} `json:"mcp"`
	}
	_ = json.Unmarshal(b, &ans)
	return cs[0].Name + "=" + cs[0].Value, ans.MCP.Headers[mcpexpose.TokenHeader], nil
}

func mcpCall(id int, tool, args string) string {
	return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`
}

func mcpHeaders(extra ...string) map[string]string {
	h := map[string]string{"Accept": mcpAccept, "Mcp-Protocol-Version": mcpProtocol}
	for i := 0; i+1 < len(extra); i += 2 {
		h[extra[i]] = extra[i+1]
	}
	return h
}

// countIs checks a get_counter_value answer (plain or as MCP text).
func countIs(b []byte, n int) error {
	s := strings.ReplaceAll(string(b), `\"`, `"`)
	if !strings.Contains(s, `"count":`+strconv.Itoa(n)+`}`) {
		return fmt.Errorf("counter: want %d after %d increments, got %.200s", n, n, b)
	}
	return nil
}

const (
	incBody = `{"count":1}`
	incWant = `"success":true`
	// workplace's tool call of the load table: a read of the directory.
	wpTool = "company_directory_find_email_address"
	wpArgs = `{"name":"carlos"}`
	wpWant = "carlos"
)

func (d *driver) scenarios() []scenario {
	all := []scenario{
		{name: ScenarioChi, kind: KindChi, client: httpCounter},
		{name: ScenarioGymkitHTTP, kind: KindCounter, client: httpCounter},
		{name: ScenarioSDK, kind: KindSDK, client: func(ctx context.Context, _ *driver, p *proc, hc *http.Client) (func() error, func(int) error, error) {
			hdr := mcpHeaders(RolloutHeader, newID())
			call := func() error {
				_, err := expect(ctx, hc, p.url, mcpCall(2, "increment_counter", incBody), hdr, incWant)
				return err
			}
			check := func(n int) error {
				b, err := expect(ctx, hc, p.url, mcpCall(3, "get_counter_value", `{}`), hdr, "count")
				if err != nil {
					return err
				}
				return countIs(b, n)
			}
			return call, check, nil
		}},
		{name: ScenarioGymkitMCP, kind: KindCounter, client: mcpCounter},
		{name: ScenarioGymkitMCPSDK, kind: KindCounterSDK, client: mcpCounter},
		{name: ScenarioWorkplaceHTTP, kind: KindWorkplace, client: func(ctx context.Context, d *driver, p *proc, hc *http.Client) (func() error, func(int) error, error) {
			cookie, _, err := seed(ctx, hc, p.url, string(d.row))
			if err != nil {
				return nil, nil, err
			}
			hdr := map[string]string{"Cookie": cookie}
			return func() error { _, err := expect(ctx, hc, p.url+"/"+wpTool, wpArgs, hdr, wpWant); return err }, nil, nil
		}},
		{name: ScenarioWorkplaceMCP, kind: KindWorkplace, client: func(ctx context.Context, d *driver, p *proc, hc *http.Client) (func() error, func(int) error, error) {
			_, token, err := seed(ctx, hc, p.url, string(d.row))
			if err != nil {
				return nil, nil, err
			}
			hdr := mcpHeaders(mcpexpose.TokenHeader, token)
			return func() error {
				_, err := expect(ctx, hc, p.url+mcpexpose.URLPath, mcpCall(2, wpTool, wpArgs), hdr, wpWant)
				return err
			}, nil, nil
		}},
		{name: ScenarioSeedEmpty, kind: KindWorkplace, maxClients: 32, client: seedClient(`{}`)},
		{name: ScenarioSeedRow, kind: KindWorkplace, maxClients: 32, client: seedClient("")},
	}
	if os.Getenv("GYMKIT_REDIS_URL") == "" {
		d.redisNote = "GYMKIT_REDIS_URL is unset (make bench runs the driver under .ci/with-redis.sh, which starts a redis-server when one is on PATH)"
	} else {
		all = append(all,
			scenario{name: ScenarioRedisHTTP, kind: KindCounterRedis, client: replicaCounter(false, KindCounterRedis)},
			scenario{name: ScenarioRedisHTTP2, kind: KindCounterRedis, also: KindCounterRedis2, client: replicaCounter(false, KindCounterRedis, KindCounterRedis2)},
			scenario{name: ScenarioRedisMCP, kind: KindCounterRedis, client: replicaCounter(true, KindCounterRedis)},
			scenario{name: ScenarioRedisMCP2, kind: KindCounterRedis, also: KindCounterRedis2, client: replicaCounter(true, KindCounterRedis, KindCounterRedis2)},
		)
	}
	if d.cfg.Scenarios == nil {
		return all
	}
	var out []scenario
	for _, s := range all {
		if slices.Contains(d.cfg.Scenarios, s.name) {
			out = append(out, s)
		}
	}
	return out
}

// replicaCounter is a counter rollout over the replicas of kinds, on the
// MCP door (mcp) or the HTTP door: seeded on the first, its calls go
// round-robin over all of them, and its count is checked on the last.
func replicaCounter(mcp bool, kinds ...string) func(context.Context, *driver, *proc, *http.Client) (func() error, func(int) error, error) {
	return func(ctx context.Context, d *driver, _ *proc, hc *http.Client) (func() error, func(int) error, error) {
		var bases []string
		for _, k := range kinds {
			bases = append(bases, d.procs[k].url)
		}
		cookie, token, err := seed(ctx, hc, bases[0], `{"initial_count":0}`)
		if err != nil {
			return nil, nil, err
		}
		hdr := map[string]string{"Cookie": cookie}
		url := func(base, tool string) string { return base + "/" + tool }
		body := func(id int, tool, args string) string { return args }
		if mcp {
			hdr = mcpHeaders(mcpexpose.TokenHeader, token)
			url = func(base, _ string) string { return base + mcpexpose.URLPath }
			body = mcpCall
		}
		i := 0
		call := func() error {
			base := bases[i%len(bases)]
			i++
			_, err := expect(ctx, hc, url(base, "increment_counter"), body(2, "increment_counter", incBody), hdr, incWant)
			return err
		}
		check := func(n int) error {
			last := bases[len(bases)-1]
			b, err := expect(ctx, hc, url(last, "get_counter_value"), body(3, "get_counter_value", `{}`), hdr, "count")
			if err != nil {
				return err
			}
			return countIs(b, n)
		}
		return call, check, nil
	}
}

// httpCounter is a counter rollout on an HTTP door (chi or gymkit).
func httpCounter(ctx context.Context, _ *driver, p *proc, hc *http.Client) (func() error, func(int) error, error) {
	cookie, _, err := seed(ctx, hc, p.url, `{"initial_count":0}`)
	if err != nil {
		return nil, nil, err
	}
	hdr := map[string]string{"Cookie": cookie}
	call := func() error { _, err := expect(ctx, hc, p.url+"/increment_counter", incBody, hdr, incWant); return err }
	check := func(n int) error {
		b, err := expect(ctx, hc, p.url+"/get_counter_value", `{}`, hdr, "count")
		if err != nil {
			return err
		}
		return countIs(b, n)
	}
	return call, check, nil
}

// seedClient's calls are fresh seeds (no cookie) with body ("" = the real
// row).
func seedClient(body string) func(context.Context, *driver, *proc, *http.Client) (func() error, func(int) error, error) {
	return func(ctx context.Context, d *driver, p *proc, hc *http.Client) (func() error, func(int) error, error) {
		b := body
		if b == "" {
			b = string(d.row)
		}
		return func() error {
			st, hdr, ans, err := post(ctx, hc, p.url+"/seed_session", b, nil)
			if err != nil {
				return err
			}
			if st != http.StatusOK || len(hdr.Values("Set-Cookie")) != 1 {
				return fmt.Errorf("seed: %d %.200s", st, ans)
			}
			return nil
		}, nil, nil
	}
}

// loadavg is the 1-minute load average ("?" when unknown): the report
// says how loaded the machine was.
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) > 0 {
		return f[0]
	}
	return "?"
}

// mcpCounter is one rollout of the counter over gymkit's MCP door: seeded
// over HTTP, then tools/call with the seed's session token (no initialize:
// stateless, as NeMo's agents call it).
func mcpCounter(ctx context.Context, _ *driver, p *proc, hc *http.Client) (func() error, func(int) error, error) {
	_, token, err := seed(ctx, hc, p.url, `{"initial_count":0}`)
	if err != nil {
		return nil, nil, err
	}
	hdr := mcpHeaders(mcpexpose.TokenHeader, token)
	url := p.url + mcpexpose.URLPath
	call := func() error {
		_, err := expect(ctx, hc, url, mcpCall(2, "increment_counter", incBody), hdr, incWant)
		return err
	}
	check := func(n int) error {
		b, err := expect(ctx, hc, url, mcpCall(3, "get_counter_value", `{}`), hdr, "count")
		if err != nil {
			return err
		}
		return countIs(b, n)
	}
	return call, check, nil
}
