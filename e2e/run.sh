#!/usr/bin/env bash
# End-to-end checks of the MCP door (make e2e runs "npm ci" in e2e/, then this):
#
#   1. build gymkit and start "gymkit serve" on the example_mcp_weather config;
#   2. read its ready line: "<instance> <base URL> mcp=<MCP URL>";
#   3. weather.mjs: one rollout with the official MCP TypeScript SDK client
#      (seed over HTTP, initialize, tools/list, tools/call with the session
#      token, /verify with mcp__example_mcp_weather__get_weather -> reward 1.0);
#   4. toolkit.mjs: math_advanced_calculations with bearer auth and an
#      mcp.tools allow-list, through the same client (401 JSON, then success);
#   5. the MCP conformance suite's server scenarios that apply to a stateless
#      server with its own tools (docs/mcp.md says why the others do not);
#   6. the conformance environment (e2e/conformance-server: the suite's
#      test_tool_with_progress and test_elicitation on a door with
#      mcp.stateful: true) and the scenarios that need it: progress,
#      elicitation, several concurrent POST streams in one session.
#
# Everything comes from npm (Node 22 too, as the "node" package). Set GYMKIT to
# use an already built gymkit binary. Exits non-zero on any failure.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
node="$here/node_modules/.bin/node"
conformance="$here/node_modules/@modelcontextprotocol/conformance/dist/index.js"
scenarios=(server-initialize ping tools-list logging-set-level dns-rebinding-protection)
stateful_scenarios=(tools-call-with-progress tools-call-elicitation server-sse-multiple-streams)

if [ ! -x "$node" ] || [ ! -f "$conformance" ]; then
	echo "e2e: the npm packages are missing: run 'npm ci' in e2e/ (make e2e does)" >&2
	exit 1
fi
gymkit=${GYMKIT:-}
if [ -z "$gymkit" ]; then
	gymkit="$here/.bin/gymkit"
	(cd "$root" && "${GO:-go}" build -o "$gymkit" ./cmd/gymkit)
fi
confserver=${GYMKIT_CONFORMANCE_SERVER:-}
if [ -z "$confserver" ]; then
	confserver="$here/.bin/conformance-server"
	(cd "$root" && "${GO:-go}" build -o "$confserver" ./e2e/conformance-server)
fi

work=$(mktemp -d)
pid="" pid2="" pid3=""
cleanup() {
	for p in $pid $pid2 $pid3; do
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	rm -rf "$work"
}
trap cleanup EXIT

export GYMKIT_MCP_TOKEN_SECRET="gymkit-e2e-token-secret-0123456789abcdef"
(cd "$root" && exec "$gymkit" serve --config servers/example_mcp_weather/configs/example_mcp_weather.yaml) \
	>"$work/ready" 2>"$work/log" &
pid=$!

for _ in $(seq 300); do
	[ -s "$work/ready" ] && [ "$(wc -l <"$work/ready")" -ge 1 ] && break
	if ! kill -0 "$pid" 2>/dev/null; then
		echo "e2e: gymkit serve exited before it was ready:" >&2
		cat "$work/log" >&2
		exit 1
	fi
	sleep 0.1
done
line=$(head -n 1 "$work/ready")
if [ -z "$line" ]; then
	echo "e2e: no ready line from gymkit serve after 30s" >&2
	cat "$work/log" >&2
	exit 1
fi
echo "e2e: gymkit serve: $line"
base=$(awk '{print $2}' <<<"$line")
mcp=$(tr ' ' '\n' <<<"$line" | sed -n 's/^mcp=//p')
if [ -z "$mcp" ]; then
	echo "e2e: the ready line has no mcp=<URL>: this gymkit does not serve the MCP door" >&2
	exit 1
fi

# A second instance served as a toolkit to general MCP clients: bearer auth
# (one API key, given to gymkit as its SHA-256) and a config allow-list.
api_key="gymkit-e2e-api-key-$(date +%s%N)"
key_hash=$(printf '%s' "$api_key" | sha256sum | awk '{print $1}')
mathcfg=math_advanced_calculations.resources_servers.math_advanced_calculations
GYMKIT_E2E_API_KEYS="e2e:$key_hash" \
	"$gymkit" serve --config "$root/servers/math_advanced_calculations/configs/math_advanced_calculations.yaml" \
	"$mathcfg.auth.api_keys.env=GYMKIT_E2E_API_KEYS" "$mathcfg.mcp.tools=[add, multiply]" \
	>"$work/ready2" 2>"$work/log2" &
pid2=$!
for _ in $(seq 300); do
	[ -s "$work/ready2" ] && break
	kill -0 "$pid2" 2>/dev/null || break
	sleep 0.1
done
line2=$(head -n 1 "$work/ready2" 2>/dev/null || true)

passed=0 failed=0
if "$node" "$here/weather.mjs" "$base"; then
	passed=$((passed + 1))
else
	failed=$((failed + 1))
fi
if [ -n "$line2" ] && "$node" "$here/toolkit.mjs" "$(awk '{print $2}' <<<"$line2")" \
	"$(tr ' ' '\n' <<<"$line2" | sed -n 's/^mcp=//p')" "$api_key"; then
	passed=$((passed + 1))
else
	echo "e2e: toolkit instance (${line2:-not ready}); its log:" >&2
	cat "$work/log2" >&2
	failed=$((failed + 1))
fi
kill "$pid2" 2>/dev/null || true
wait "$pid2" 2>/dev/null || true
for s in "${scenarios[@]}"; do
	if (cd "$work" && "$node" "$conformance" server --url "$mcp" --scenario "$s") >"$work/$s.txt" 2>&1; then
		echo "e2e: conformance $s: $(grep -m1 '^Passed:' "$work/$s.txt" || echo ok)"
		passed=$((passed + 1))
	else
		echo "e2e: conformance $s FAILED:" >&2
		cat "$work/$s.txt" >&2
		failed=$((failed + 1))
	fi
done

# The conformance environment: a stateful door with the suite's tools.
"$confserver" --config "$here/conformance-server/conformance.yaml" >"$work/ready3" 2>"$work/log3" &
pid3=$!
for _ in $(seq 300); do
	[ -s "$work/ready3" ] && break
	kill -0 "$pid3" 2>/dev/null || break
	sleep 0.1
done
mcp3=$(head -n 1 "$work/ready3" 2>/dev/null | tr ' ' '\n' | sed -n 's/^mcp=//p')
for s in "${stateful_scenarios[@]}"; do
	if [ -n "$mcp3" ] && (cd "$work" && "$node" "$conformance" server --url "$mcp3" --scenario "$s") >"$work/$s.txt" 2>&1; then
		echo "e2e: conformance $s (stateful): $(grep -m1 '^Passed:' "$work/$s.txt" || echo ok)"
		passed=$((passed + 1))
	else
		echo "e2e: conformance $s (stateful) FAILED:" >&2
		cat "$work/$s.txt" "$work/log3" >&2 2>/dev/null || true
		failed=$((failed + 1))
	fi
done
kill "$pid3" 2>/dev/null || true
wait "$pid3" 2>/dev/null || true
if [ "$failed" -gt 0 ]; then
	echo "e2e: gymkit serve's log:" >&2
	cat "$work/log" >&2
fi
echo "e2e: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
