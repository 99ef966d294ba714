// Command loadbench is gymkit's load driver (make bench): it starts each
// target server in its own process (this binary again, with -target),
// pinned to one core, drives it from the other over loopback and prints a
// markdown report: calls/s, p50/p99 and server CPU per call at 1, 32 and
// 256 clients, and the ratios against their targets. See docs/performance.md.
//
//	go run ./bench/loadbench/cmd/loadbench -duration 5s -rounds 3
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gymkit/gymkit/bench/loadbench"
)

func main() {
	target := flag.String("target", "", "serve this target kind (internal: the driver starts itself with it)")
	duration := flag.Duration("duration", 2*time.Second, "length of one point (target, client count, round)")
	rounds := flag.Int("rounds", 3, "alternated rounds per point (the report shows medians)")
	clients := flag.String("clients", "1,32,256", "client counts, comma-separated")
	scenarios := flag.String("scenarios", "", "load scenarios, comma-separated (default all): "+strings.Join(loadbench.ScenarioNames, ", "))
	weatherRollouts := flag.Int("weather-rollouts", 20, "weather rollouts per door and round")
	weatherCalls := flag.Int("weather-calls", 100, "get_weather calls per weather rollout (0 skips the weather measurement)")
	repeats := flag.Int("rollout-repeats", 10, "repeats of the 5 workplace example rows per door and round (negative skips)")
	pin := flag.Bool("pin", true, "pin targets to CPU 0 and the driver to CPU 1 (taskset)")
	quiet := flag.Bool("quiet", false, "no progress lines on stderr")
	flag.Parse()

	root, err := loadbench.ModuleRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if *target != "" {
		os.Exit(loadbench.TargetMain(*target, root))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cfg := loadbench.Config{
		Target: func(kind string) ([]string, []string) {
			exe, err := os.Executable()
			if err != nil {
				exe = os.Args[0]
			}
			return []string{exe, "-target", kind}, nil
		},
		Root: root, Duration: *duration, Rounds: *rounds, Pin: *pin,
		WeatherRollouts: *weatherRollouts, WeatherCalls: *weatherCalls, RolloutRepeats: *repeats,
		Out: os.Stdout, Log: os.Stderr,
	}
	if *weatherCalls == 0 {
		cfg.WeatherCalls = -1
	}
	if *quiet {
		cfg.Log = nil
	}
	for _, c := range strings.Split(*clients, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(c))
		if err != nil || n < 1 {
			fmt.Fprintf(os.Stderr, "loadbench: bad -clients %q\n", *clients)
			os.Exit(2)
		}
		cfg.Clients = append(cfg.Clients, n)
	}
	if *scenarios != "" {
		for _, s := range strings.Split(*scenarios, ",") {
			cfg.Scenarios = append(cfg.Scenarios, strings.TrimSpace(s))
		}
	}
	if err := loadbench.Run(ctx, cfg); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
