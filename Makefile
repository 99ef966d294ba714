# gymkit: `make test` is the project's test command (CI runs it through .ci/run).
GO ?= go

.PHONY: test fmt vet unit bench fuzz e2e build run peer soak redis-test

# `make run` serves example_mcp_weather on http://127.0.0.1:$(RUN_PORT).
RUN_PORT ?= 8000

test: fmt vet unit

fmt:
	@out=$$(gofmt -l $$(find . -name '*.go' -not -path '*/node_modules/*')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

# The memory bounds of docs/security.md ("Exhaust memory"; tests/breaktest TestBodyMemoryBounded, TestExtraMemory) are
# measured without -race (its runtime's figures are not the server's), so they
# run a second time alone. tests/nemolaunch asserts wall-clock bounds on real
# processes (each server exits within 1 s of its stop, docs/nemo.md "Stopping"):
# it runs alone after the others, not beside the memory and load suites that
# saturate both cores.
SERIAL_PKGS = github.com/gymkit/gymkit/tests/nemolaunch
unit:
	$(GO) test -race -count=1 $$($(GO) list ./... | grep -v -x -F '$(SERIAL_PKGS)')
	$(GO) test -race -count=1 ./tests/nemolaunch
	$(GO) test -count=1 -run '^(TestBodyMemoryBounded|TestExtraMemory)$$' ./tests/breaktest
	$(GO) test -count=1 -run '^TestClientAnswerMemory$$' ./cli

# Replays NeMo Gym's recorded Python answers (../shared/data/nemo-gym-peer) against
# gymkit and prints every difference with a readable body diff; PEER=<file
# name without .jsonl> replays one file, e.g. make peer PEER=example_mcp_weather.
# Part of make test (unit) too.
PEER ?=
peer:
	$(GO) test -count=1 -v -run 'TestPeerReplay/$(PEER)' ./tests/peerreplay

# The bounded soak (tests/soak, build tag soak; not part of make test): two shipped
# environments on loopback, good and bad traffic on both doors, live heap, goroutines and
# fds sampled; a few minutes. SOAK_FLAGS tunes it, e.g.
#   make soak SOAK_FLAGS='-soak.duration=1m -soak.concurrency=4'
#   make soak SOAK_FLAGS='-soak.cookieless=1000000'   # the figure docs/security.md quotes
SOAK_FLAGS ?=
soak:
	$(GO) vet -tags soak ./tests/soak
	$(GO) test -tags soak -count=1 -timeout 45m -v -run '^TestSoak$$' ./tests/soak -args $(SOAK_FLAGS)

# Runs every fuzz target (every func Fuzz* in a _test.go file) for FUZZTIME each;
# .ci/run runs it. A crasher is written to <package>/testdata/fuzz/<Fuzz...>/ and
# fails the run: committed, it becomes a regression test of make test (go test
# runs the corpus).
FUZZTIME ?= 6s
fuzz:
	@set -e; grep -rn --include='*_test.go' -E '^func Fuzz[A-Za-z0-9_]*\(' . | grep -v node_modules | \
	sed -E 's#^\./(.*)/[^/]*:[0-9]+:func (Fuzz[A-Za-z0-9_]*)\(.*#\1 \2#' | sort | \
	while read dir name; do \
		echo "fuzz ./$$dir $$name ($(FUZZTIME))"; \
		$(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) ./$$dir; \
	done

# The performance suite, in one run (not part of make test; docs/performance.md): every Go
# benchmark (ns/op, allocs/op; bench/loadbench compares both doors with a bare chi
# handler and a bare go-sdk server), then the load driver (bench/loadbench/cmd/loadbench:
# each target in its own process pinned to CPU 0, the driver on CPU 1; calls/s, p50/p99,
# server CPU per call at 1, 32 and 256 clients, and the ratios against their targets; with a redis-server on
# PATH also the counter on session.store: redis, one replica and two). About 6 minutes.
# BENCH_FLAGS and LOADBENCH_FLAGS tune them, e.g.
#   make bench BENCH_FLAGS='-count 5' LOADBENCH_FLAGS='-duration 10s -rounds 5'
#   make bench LOADBENCH_FLAGS='-clients 256 -duration 30s -rounds 1'   # the 30 s error check
BENCH_FLAGS ?=
LOADBENCH_FLAGS ?=
bench:
	.ci/with-redis.sh $(GO) test -run '^$$' -bench . -benchmem $(BENCH_FLAGS) ./...
	.ci/with-redis.sh $(GO) run ./bench/loadbench/cmd/loadbench $(LOADBENCH_FLAGS)

# redis-test: the tests that need Redis (store, two replicas, peer goldens on
# Redis) against a private redis-server on a free port; they fail, not skip.
redis-test:
	.ci/with-redis.sh --require $(GO) test -race -count=1 ./session/redisstore/ ./tests/replicas/ ./tests/peerreplay/ ./server/ ./config/

build:
	$(GO) build -o bin/gymkit ./cmd/gymkit

run: build
	./bin/gymkit serve --config servers/example_mcp_weather/configs/example_mcp_weather.yaml \
		example_mcp_weather.resources_servers.example_mcp_weather.port=$(RUN_PORT)

# End-to-end checks of the MCP door with the official MCP TypeScript SDK client and
# the MCP conformance suite: everything from npm (pinned in e2e/package-lock.json,
# Node 22 included). Needs npm and the npm registry. See docs/mcp.md.
e2e:
	cd e2e && npm ci --no-audit --no-fund
	GO=$(GO) bash e2e/run.sh
