package peerreplay

import (
	"testing"

	"github.com/gymkit/gymkit/internal/testkit/redistest"
)

// TestPeerReplayRedis replays every peer file again with the rollout state
// in Redis (session.store: redis, a session_secret, a key prefix of its
// own): the answers must be the same as with the memory store. It needs
// GYMKIT_REDIS_URL (see internal/testkit/redistest: it skips without, and fails
// under GYMKIT_REQUIRE_REDIS=1).
func TestPeerReplayRedis(t *testing.T) {
	replayAll(t, redistest.URL(t))
}

// redisOverrides puts the scenario's instance on the Redis store.
func redisOverrides(t *testing.T, sc scenario, url string) []string {
	block := sc.Instance + ".resources_servers." + sc.ServerDir + "."
	return []string{
		block + "session.store=redis",
		block + "session.url=" + url,
		block + "session.prefix=" + redistest.Prefix(t),
		block + "session_secret=peer-replay-redis-0123456789abcdefghijklmnop",
		block + "session.read_timeout=10s", // the replay compares answers, not store latency
	}
}
