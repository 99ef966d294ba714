package redisstore_test

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/gymkit/gymkit/session/redisstore"
)

// go-redis's pool logs a dial failure (pool.go: "connection pool: failed to
// dial after N attempts") through its process-wide logger; with this package
// imported it goes to slog.Default() at Debug with component=go-redis, not as
// a raw line on stderr. Not parallel: it replaces slog.Default().
func TestGoRedisLogsToSlog(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now

	var buf bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	t.Cleanup(func() { slog.SetDefault(prev) })

	st, err := redisstore.New(redisstore.Options{URL: "redis://" + addr + "/0", Prefix: "logtest:", DialTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := st.Ping(ctx); err == nil {
		t.Fatal("Ping of a closed port succeeded")
	}
	out := buf.String()
	if !strings.Contains(out, "level=DEBUG") || !strings.Contains(out, `msg="connection pool: failed to dial`) ||
		!strings.Contains(out, "component=go-redis") {
		t.Errorf("slog output:\n%s\nwant a Debug record of the dial failure with component=go-redis", out)
	}
}
