package redisstore

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/redis/go-redis/v9"
)

// go-redis logs through one process-wide logger, by default a log.Logger on
// os.Stderr writing raw lines such as
//
//	redis: 2026/12/02 02:10:11 pool.go:770: redis: connection pool: failed to dial after 5 attempts: ...
//
// beside gymkit's structured log, whose own Warn already says that the
// session store does not answer (and each failing call answers 503 with
// session.ErrStoreUnavailable). Importing this package routes those lines
// to slog.Default() at Debug level, with component=go-redis and the "redis: "
// prefix dropped, so that they are silent under the default handler and
// visible to a program that sets a Debug-level default. A program that wants
// them elsewhere calls redis.SetLogger after this package's init.
func init() { redis.SetLogger(slogLogger{}) }

// slogLogger is go-redis's internal.Logging on slog.Default(). Safe for
// concurrent use.
type slogLogger struct{}

// Printf logs one go-redis message at Debug.
func (slogLogger) Printf(ctx context.Context, format string, v ...any) {
	l := slog.Default()
	if ctx == nil {
		ctx = context.Background()
	}
	if !l.Enabled(ctx, slog.LevelDebug) {
		return
	}
	l.DebugContext(ctx, strings.TrimPrefix(fmt.Sprintf(format, v...), "redis: "), "component", "go-redis")
}
