#!/usr/bin/env bash
# Runs a command with a private redis-server on a free loopback port, and
# GYMKIT_REDIS_URL pointing at it (the Redis tests of session/redisstore,
# tests/replicas and tests/peerreplay use it); stops it afterwards.
#
#   .ci/with-redis.sh [--install] [--require] COMMAND [ARGS...]
#
# --install: apt-get install redis-server when it is missing (sudo if not root).
# --require: export GYMKIT_REQUIRE_REDIS=1, so that the Redis tests fail, not
#            skip, without Redis; and fail here if there is no redis-server.
# Without redis-server (and without --require) the command runs without Redis.
set -euo pipefail
install=0 require=0
while [ $# -gt 0 ]; do
	case "$1" in
	--install) install=1; shift ;;
	--require) require=1; shift ;;
	*) break ;;
	esac
done
if ! command -v redis-server >/dev/null 2>&1 && [ "$install" = 1 ]; then
	sudo=""
	if [ "$(id -u)" != 0 ]; then
		if ! command -v sudo >/dev/null 2>&1; then
			echo "with-redis: --install needs root or sudo to apt-get install redis-server" >&2
			exit 1
		fi
		sudo="sudo -n"
	fi
	# A clean machine has no package lists yet: update first. The package's
	# own service (port 6379, if its postinst starts one) is not used.
	$sudo apt-get update -qq
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends redis-server >/dev/null
fi
if [ "$require" = 1 ]; then
	export GYMKIT_REQUIRE_REDIS=1
fi
if ! command -v redis-server >/dev/null 2>&1; then
	if [ "$require" = 1 ]; then
		echo "with-redis: no redis-server on PATH (apt-get install redis-server)" >&2
		exit 1
	fi
	echo "with-redis: no redis-server on PATH: running without Redis (the Redis tests skip)" >&2
	exec "$@"
fi
# ping PORT: true when the server on 127.0.0.1:PORT answers PING with +PONG
# (bash's /dev/tcp: no need for redis-cli).
ping() {
	(
		exec 4<>"/dev/tcp/127.0.0.1/$1" || exit 1
		printf 'PING\r\n' >&4
		IFS= read -r -t 1 reply <&4 || exit 1
		[ "${reply%$'\r'}" = "+PONG" ]
	) 2>/dev/null
}
dir=$(mktemp -d)
pid=""
cleanup() {
	if [ -n "$pid" ]; then
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	fi
	rm -rf "$dir"
}
trap cleanup EXIT
# A port that looked free may be taken before redis-server binds it (another
# job on the machine): then redis-server exits, and we try another port.
port=""
for _ in $(seq 1 20); do
	p=$((RANDOM % 30000 + 20000))
	if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
		continue # something listens there
	fi
	redis-server --port "$p" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" \
		--logfile "$dir/redis.log" &
	pid=$!
	for _ in $(seq 1 100); do
		if ping "$p"; then
			port=$p
			break
		fi
		if ! kill -0 "$pid" 2>/dev/null; then
			break # it exited: the port was taken meanwhile, or it failed to start
		fi
		sleep 0.1
	done
	if [ -n "$port" ]; then
		break
	fi
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	pid=""
done
if [ -z "$port" ]; then
	echo "with-redis: could not start redis-server on a free port; its last log:" >&2
	tail -n 20 "$dir/redis.log" >&2 2>/dev/null || true
	exit 1
fi
export GYMKIT_REDIS_URL="redis://127.0.0.1:$port/0"
echo "with-redis: redis-server $(redis-server --version | awk '{print $3}') on $GYMKIT_REDIS_URL" >&2
"$@"
