#!/usr/bin/env bash
# Runs a command with a private redis-server on a free loopback port, and
# GYMKIT_REDIS_URL pointing at it (the Redis tests of session/redisstore,
# internal/replicas and internal/peerreplay use it); stops it afterwards.
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
	if [ "$(id -u)" != 0 ]; then sudo=sudo; fi
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq redis-server >/dev/null
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
port=""
for _ in $(seq 1 50); do
	p=$((RANDOM % 30000 + 20000))
	if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
		port=$p
		break
	fi
done
if [ -z "$port" ]; then
	echo "with-redis: no free port found" >&2
	exit 1
fi
dir=$(mktemp -d)
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" \
	--logfile "$dir/redis.log" &
pid=$!
cleanup() {
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	rm -rf "$dir"
}
trap cleanup EXIT
for _ in $(seq 1 100); do
	if redis-cli -p "$port" ping >/dev/null 2>&1; then break; fi
	sleep 0.1
done
redis-cli -p "$port" ping >/dev/null
export GYMKIT_REDIS_URL="redis://127.0.0.1:$port/0"
echo "with-redis: redis-server $(redis-server --version | awk '{print $3}') on $GYMKIT_REDIS_URL" >&2
"$@"
