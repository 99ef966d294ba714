// Package loadbench is gymkit's performance suite (make bench):
// a load driver and in-process benchmarks that compare gymkit's two doors
// with bare floors on the same tool, in one run.
//
// The load driver ([Run], command bench/loadbench/cmd/loadbench) starts
// one process per target kind ([Kinds]: a bare chi router, a bare go-sdk
// MCP server, gymkit serving example_session_state_mgmt,
// example_mcp_weather and workplace_assistant), pins each to CPU 0 and
// itself to CPU 1 when it can, and drives them over loopback:
//
//	err := loadbench.Run(ctx, loadbench.Config{
//		Target: func(kind string) ([]string, []string) {
//			return []string{os.Args[0], "-target", kind}, nil // calls loadbench.TargetMain
//		},
//		Root:     root, // the module root
//		Duration: 5 * time.Second,
//		Out:      os.Stdout,
//	})
//
// Each scenario (a row of the table, [ScenarioNames]) runs at each client
// count for Config.Duration per round; every client is one rollout (seeded
// once, then calling the tool as fast as answers come), every answer is
// checked, and the counter scenarios check each rollout's count at the
// end. Server CPU per call is the target's utime+stime delta
// (/proc/<pid>/stat) over the calls; goroutines come from the target's
// GET /debug ([Debug]). The report is markdown: medians of alternated
// rounds, then the ratios against their targets.
//
// With GYMKIT_REDIS_URL set (make bench runs the driver under
// .ci/with-redis.sh) it also starts [RedisKinds], two replicas of the
// counter on that Redis (session.store: redis, one shared secret, a key
// prefix of the run's), and measures the counter on one replica and on two,
// over HTTP and MCP, each client's calls alternating between the replicas
// (the 2-replica rows' CPU is both processes'); the report compares them
// with the memory store's rows. Without it those rows are skipped and the
// report says why.
//
// The benchmarks (go test -bench . ./bench/loadbench) call the same
// four counter handlers in process (httptest request, direct ServeHTTP),
// so that ns/op and allocs/op of the doors print beside the floors'.
package loadbench
