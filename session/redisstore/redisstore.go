// Package redisstore keeps gymkit's per-rollout state in Redis or Valkey, so
// that several replicas of a resources server serve every rollout, on both
// doors, with no stickiness:
//
//	st, err := redisstore.New(redisstore.Options{URL: "redis://127.0.0.1:6379/0", Prefix: "counter:"})
//	if err != nil {
//		log.Fatal(err)
//	}
//	defer st.Close()
//	m := session.MustNewManager(session.Options{CookieName: "example_session_state_mgmt___counter",
//		Secrets: [][]byte{secret}, State: st})
//
// A gymkit host builds it from the instance config's session block
// (session: {store: redis, url: ...}; see config.SessionConfig and
// docs/deployment.md), so environments do not write this.
//
// It uses github.com/redis/go-redis/v9 directly, not scs's redisstore:
// session.StateStore is keyed by session id and key and needs an atomic
// read-modify-write of one key across processes (session.Update), which an
// scs store's Find and Commit of a whole opaque entry cannot give.
package redisstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gymkit/gymkit/session"
)

// Defaults of [Options].
const (
	// DefaultDialTimeout bounds opening a connection to Redis.
	DefaultDialTimeout = time.Second
	// DefaultReadTimeout bounds each command's reply (and its write).
	DefaultReadTimeout = time.Second
	// DefaultMaxValueBytes bounds one stored value (16 MiB, the default
	// max_body_bytes).
	DefaultMaxValueBytes = 16 << 20
)

// ErrCorruptState is in the chain of the error a [Store] returns when the
// rollout's Redis key holds something gymkit did not write: another type of
// key (a list, a string: Redis's WRONGTYPE), a hash whose expiry field "d" is
// not a number, or a value larger than [Options.MaxValueBytes]. Only that
// rollout is affected: the store is reachable (the error does not wrap
// [session.ErrStoreUnavailable], so the framework answers it as a plain
// error, NeMo's unhandled 500, which drops the rollout's cookie, and the
// agent's next call starts a new session), and [Store.Delete] (POST
// /close_session) removes the key. Its text names the store, the key and
// what is wrong. Test with errors.Is.
var ErrCorruptState = errors.New("the rollout's state in the store is not what gymkit wrote")

// Options configures a [Store] (the instance config's session
// block: store: redis, url, prefix, dial_timeout, read_timeout, pool_size;
// see config.SessionConfig).
type Options struct {
	// URL is the Redis (or Valkey) server: redis://[user:password@]host:port/db,
	// rediss:// for TLS, or unix:///path.sock (go-redis's ParseURL syntax).
	// Required.
	URL string
	// Prefix starts every Redis key the store writes: "<Prefix><session id>".
	// Replicas of one instance must use the same Prefix; instances sharing a
	// Redis should use different ones. Empty means "gymkit:".
	Prefix string
	// IdleTimeout is the idle expiry of a session's state: every Get and
	// Update sets the Redis key's TTL to it (capped by Lifetime). Zero means
	// [session.DefaultIdleTimeout]; give the Manager's IdleTimeout.
	IdleTimeout time.Duration
	// Lifetime is the absolute lifetime of a session's state, counted from
	// its first write (stored in the key): the TTL never reaches past it.
	// Zero means [session.DefaultLifetime]; give the Manager's Lifetime.
	Lifetime time.Duration
	// DialTimeout bounds opening a connection; zero means
	// [DefaultDialTimeout] (1s).
	DialTimeout time.Duration
	// ReadTimeout bounds reading each reply and writing each command; zero
	// means [DefaultReadTimeout] (1s).
	ReadTimeout time.Duration
	// PoolSize is the maximum number of connections; zero means go-redis's
	// default (10 per CPU). Waiting for a free connection is bounded by
	// ReadTimeout + 1s.
	PoolSize int
	// MaxValueBytes bounds one stored value, in bytes: Get and Update
	// refuse a larger stored value without reading it (an error wrapping
	// [ErrCorruptState]: something other than gymkit wrote it, or a
	// store with a larger limit did), and Update refuses to write a value fn
	// made larger (an error naming the key and both sizes, nothing
	// written). It bounds the memory and the Redis time one rollout can
	// take per call. Zero means [DefaultMaxValueBytes] (16 MiB).
	MaxValueBytes int
	// Clock is the time source of the absolute lifetime; nil means time.Now.
	Clock func() time.Time
}

// Store is a [session.StateStore] that keeps per-rollout state in Redis or
// Valkey, so that every replica of an instance reads and writes the same
// state: any replica answers any call of any rollout, on either door, with
// no stickiness. It talks to Redis through github.com/redis/go-redis/v9
// directly rather than through scs's redisstore (session.SCSStore): a StateStore
// is keyed by session id and key and needs an atomic read-modify-write of
// one key, which scs's Find/Commit of a whole opaque entry cannot express
// across processes.
//
// Layout: one Redis hash per session that wrote state, "<prefix><session
// id>", with the fields "v:<key>" (the value, as fn returned it), "n:<key>"
// (a random version, new on every write) and "d" (the absolute expiry, in
// Unix milliseconds: first write + Lifetime). Its TTL is set on every Get
// and Update to IdleTimeout, never past "d", so Redis itself expires idle
// and finished sessions; there is nothing to sweep.
//
// Update is atomic per (session id, key) across replicas: it reads the value
// and its version (a read script, which also checks that the key is
// gymkit's), calls fn, and commits with a Lua script that writes only if
// the version is still the one read (compare-and-set), else
// reads again and calls fn again with the newer value. Within one process,
// Updates of one key wait for each other on a local lock first, so the
// retries happen only between replicas (docs/deployment.md gives the
// benchmark that chose this over WATCH/MULTI and over a lock in Redis).
// fn may therefore run more than once, and must only compute the value.
// A reply lost after the script committed is recognised by its version (the
// write is not applied twice), and go-redis's own command retries are off.
//
// Failures: a store that is down, slow or out of connections makes Get,
// Update and Delete fail within about DialTimeout + ReadTimeout with an
// error wrapping [session.ErrStoreUnavailable] that names the store's address;
// nothing is half-written (the script's write is all or nothing), and the
// store recovers by itself (connections are re-dialled on the next call).
// When a commit's reply is lost, the write may have happened or not; a
// retried call sees which. Parallel Updates of one key waiting in this
// process behind one that failed so fail with it at once (see
// [Store.Update]). A key that holds something gymkit did not write (another
// Redis type, a broken expiry field, a value over [Options.MaxValueBytes])
// fails that rollout's calls with an error wrapping [ErrCorruptState], never
// another rollout's.
//
// Make it with [New]; [Store.Close] closes its connections.
// A Store is safe for concurrent use.
type Store struct {
	rdb      *redis.Client
	addr     string
	prefix   string
	idle     time.Duration
	lifetime time.Duration
	maxValue int
	now      func() time.Time
	watch    bool // commit with WATCH/MULTI instead of the script (benchmarks)
	noLocal  bool // no in-process lock (benchmarks)

	mu    sync.Mutex
	locks map[string]*keyLock // in-process lock per "<session id>\x00<key>"
}

// New returns a Store configured by opts. It does not
// connect: the first call does (see [Store.Ping] to check at start).
// It fails if opts.URL is empty or does not parse.
func New(opts Options) (*Store, error) {
	if opts.URL == "" {
		return nil, errors.New("redisstore.New: a Redis URL is required")
	}
	ro, err := redis.ParseURL(opts.URL)
	if err != nil {
		return nil, fmt.Errorf("redisstore.New: bad Redis URL: %w", err)
	}
	ro.DialTimeout = cmp(opts.DialTimeout, DefaultDialTimeout)
	ro.ReadTimeout = cmp(opts.ReadTimeout, DefaultReadTimeout)
	ro.WriteTimeout = ro.ReadTimeout
	ro.PoolTimeout = ro.ReadTimeout + time.Second
	ro.MaxRetries = -1 // fail fast; a lost reply is handled by the version check
	ro.DialerRetries = 1
	ro.ContextTimeoutEnabled = true
	ro.DisableIdentity = true // no CLIENT SETINFO (Redis < 7.2, Valkey)
	if opts.PoolSize > 0 {
		ro.PoolSize = opts.PoolSize
	}
	s := &Store{
		rdb:      redis.NewClient(ro),
		addr:     ro.Addr,
		prefix:   opts.Prefix,
		idle:     cmp(opts.IdleTimeout, session.DefaultIdleTimeout),
		lifetime: cmp(opts.Lifetime, session.DefaultLifetime),
		maxValue: opts.MaxValueBytes,
		now:      opts.Clock,
		locks:    make(map[string]*keyLock),
	}
	if s.prefix == "" {
		s.prefix = "gymkit:"
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.maxValue <= 0 {
		s.maxValue = DefaultMaxValueBytes
	}
	s.idle = min(s.idle, s.lifetime)
	return s, nil
}

func cmp(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// Key returns the Redis key of sessionID's state: "<prefix><session id>".
func (s *Store) Key(sessionID string) string { return s.prefix + sessionID }

// Addr is the address of the Redis server (host:port, or the socket path).
func (s *Store) Addr() string { return s.addr }

// Close closes the store's connections; calls after Close fail.
func (s *Store) Close() error { return s.rdb.Close() }

// Ping checks that the store answers (a Redis PING within ReadTimeout); it
// returns nil or an error wrapping [session.ErrStoreUnavailable]. A host's
// readiness probe calls it.
func (s *Store) Ping(ctx context.Context) error {
	return s.fail("PING", "", s.rdb.Ping(ctx).Err())
}

// fail wraps a go-redis error: nil stays nil; a key that is not gymkit's
// (WRONGTYPE, or a script's BADSTATE reply) wraps ErrCorruptState; a network,
// timeout, pool or server-state error (OOM, LOADING, READONLY, ...) wraps
// session.ErrStoreUnavailable; the context's own errors stay as they are (the
// caller gave up).
func (s *Store) fail(op, sessionID string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) {
		return err
	}
	if corrupt(err) {
		return fmt.Errorf("session: %w (redis at %s, key %q, %s): %v; POST /close_session deletes it",
			ErrCorruptState, s.addr, s.Key(sessionID), op, err)
	}
	return fmt.Errorf("session: %w (redis at %s, %s): %v", session.ErrStoreUnavailable, s.addr, op, err)
}

// corrupt reports whether err is Redis's answer about the key's contents
// rather than about the server: WRONGTYPE (another type of key), or the
// scripts' own BADSTATE replies.
func corrupt(err error) bool {
	var re redis.Error
	if !errors.As(err, &re) {
		return false
	}
	return redis.HasErrorPrefix(err, "WRONGTYPE") || redis.HasErrorPrefix(err, "BADSTATE")
}

// EvictionPolicy returns the Redis server's maxmemory-policy (CONFIG GET):
// anything but "noeviction" lets Redis drop a rollout's key when it is full
// (every key gymkit writes has a TTL, so the volatile-* policies drop them
// too), and the rollout then silently starts over. The host logs a warning
// at start for such a policy (docs/deployment.md, "Redis settings"). The
// error is the store's (wrapping [session.ErrStoreUnavailable]) or the
// server's refusal of CONFIG (managed services often rename it).
func (s *Store) EvictionPolicy(ctx context.Context) (string, error) {
	m, err := s.rdb.ConfigGet(ctx, "maxmemory-policy").Result()
	if err != nil {
		var re redis.Error
		if errors.As(err, &re) {
			return "", fmt.Errorf("redisstore: CONFIG GET maxmemory-policy: %w", err)
		}
		return "", s.fail("CONFIG GET", "", err)
	}
	p, ok := m["maxmemory-policy"]
	if !ok {
		return "", errors.New("redisstore: CONFIG GET maxmemory-policy: no answer")
	}
	return p, nil
}

// getScript reads field ARGV[1] and refreshes the TTL of KEYS[1]: ARGV[2]
// is the idle timeout and ARGV[3] the time now, in ms; ARGV[4] the largest
// value it returns (a larger one is a BADSTATE error, not read).
var getScript = redis.NewScript(`
local d = redis.call('HGET', KEYS[1], 'd')
if d then
  local dn = tonumber(d)
  if not dn then return redis.error_reply('BADSTATE the expiry field d is not a number') end
  local ttl = math.min(tonumber(ARGV[2]), dn - tonumber(ARGV[3]))
  if ttl <= 0 then redis.call('DEL', KEYS[1]) return false end
  redis.call('PEXPIRE', KEYS[1], ttl)
end
local size = redis.call('HSTRLEN', KEYS[1], ARGV[1])
if size > tonumber(ARGV[4]) then
  return redis.error_reply('BADSTATE the value is ' .. size .. ' bytes, over the limit of ' .. ARGV[4])
end
return redis.call('HGET', KEYS[1], ARGV[1])
`)

// readScript is Update's read: fields v:<ARGV[1]> and n:<ARGV[1]> of
// KEYS[1], refusing a value larger than ARGV[2] bytes (BADSTATE) and a
// hash whose d is not a number.
var readScript = redis.NewScript(`
local d = redis.call('HGET', KEYS[1], 'd')
if d and not tonumber(d) then return redis.error_reply('BADSTATE the expiry field d is not a number') end
local size = redis.call('HSTRLEN', KEYS[1], 'v:' .. ARGV[1])
if size > tonumber(ARGV[2]) then
  return redis.error_reply('BADSTATE the value is ' .. size .. ' bytes, over the limit of ' .. ARGV[2])
end
return {redis.call('HGET', KEYS[1], 'v:' .. ARGV[1]), redis.call('HGET', KEYS[1], 'n:' .. ARGV[1])}
`)

// casScript writes field key ARGV[1] of KEYS[1] if its version is still
// ARGV[2] (” for none): value ARGV[4] with version ARGV[3], or a delete if
// ARGV[5] is '1'; it sets the absolute expiry on the first write and the
// TTL. ARGV[6], ARGV[7], ARGV[8]: idle, lifetime, now (ms). It returns 1 if
// written (or already written by this very version: a retried reply), 0 on
// a conflict.
var casScript = redis.NewScript(`
local vf, nf = 'v:' .. ARGV[1], 'n:' .. ARGV[1]
local cur = redis.call('HGET', KEYS[1], nf) or ''
if cur == ARGV[3] then return 1 end
if cur ~= ARGV[2] then return 0 end
if ARGV[5] == '1' then
  redis.call('HDEL', KEYS[1], vf, nf)
  if redis.call('HLEN', KEYS[1]) <= 1 then redis.call('DEL', KEYS[1]) end
  return 1
end
local now = tonumber(ARGV[8])
redis.call('HSET', KEYS[1], vf, ARGV[4], nf, ARGV[3])
redis.call('HSETNX', KEYS[1], 'd', now + tonumber(ARGV[7]))
local ttl = math.min(tonumber(ARGV[6]), tonumber(redis.call('HGET', KEYS[1], 'd')) - now)
redis.call('PEXPIRE', KEYS[1], math.max(ttl, 1))
return 1
`)

// Get implements [session.StateStore]: one script call (HGET and the TTL refresh).
func (s *Store) Get(ctx context.Context, sessionID, key string) ([]byte, bool, error) {
	v, err := getScript.Run(ctx, s.rdb, []string{s.Key(sessionID)},
		"v:"+key, s.idle.Milliseconds(), s.now().UnixMilli(), s.maxValue).Text()
	if errors.Is(err, redis.Nil) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, s.fail("get", sessionID, err)
	}
	return []byte(v), true, nil
}

// Update implements [session.StateStore] (see [Store] for how it is atomic):
// per attempt one read script (the value and its version), fn, and one
// commit script; fn errors come back unchanged and write nothing.
//
// Updates of one (session id, key) in this process wait for each other; the
// wait ends early with ctx (its error returned), and when the Update that
// held the key failed because the store is unavailable, every Update that
// was already waiting fails at once with that error instead of trying in
// turn, so that N parallel calls of a rollout fail within one
// ReadTimeout of a store outage, not N of them.
func (s *Store) Update(ctx context.Context, sessionID, key string, fn func(old []byte, ok bool) ([]byte, error)) (err error) {
	if !s.noLocal {
		lk := sessionID + "\x00" + key
		l, lerr := s.lock(ctx, lk)
		if lerr != nil {
			return lerr
		}
		defer func() { s.unlock(lk, l, err) }()
	}
	if s.watch {
		return s.updateWatch(ctx, sessionID, key, fn)
	}
	rkey := s.Key(sessionID)
	for attempt := 0; ; attempt++ {
		vals, err := readScript.Run(ctx, s.rdb, []string{rkey}, key, s.maxValue).Slice()
		if err != nil {
			return s.fail("update", sessionID, err)
		}
		var old, ver string
		ok := false
		if len(vals) > 0 {
			old, ok = vals[0].(string)
		}
		if len(vals) > 1 {
			ver, _ = vals[1].(string)
		}
		v, err := fn([]byte(old), ok)
		if err != nil {
			return err
		}
		if len(v) > s.maxValue {
			return fmt.Errorf("session: the new state %q is %d bytes, over the store's limit of %d (redisstore.Options.MaxValueBytes); nothing written", key, len(v), s.maxValue)
		}
		del := "0"
		if v == nil {
			del = "1"
		}
		n, err := casScript.Run(ctx, s.rdb, []string{rkey}, key, ver, newVersion(), v, del,
			s.idle.Milliseconds(), s.lifetime.Milliseconds(), s.now().UnixMilli()).Int()
		if err != nil {
			return s.fail("update", sessionID, err)
		}
		if n == 1 {
			return nil
		}
		if err := backoff(ctx, attempt); err != nil {
			return err
		}
	}
}

// updateWatch is Update with an optimistic WATCH/MULTI/EXEC transaction, kept
// for the benchmark that compares it with the script.
func (s *Store) updateWatch(ctx context.Context, sessionID, key string, fn func(old []byte, ok bool) ([]byte, error)) error {
	rkey := s.Key(sessionID)
	for attempt := 0; ; attempt++ {
		var fnErr error
		err := s.rdb.Watch(ctx, func(tx *redis.Tx) error {
			vals, err := tx.HMGet(ctx, rkey, "v:"+key, "d").Result()
			if err != nil {
				return err
			}
			old, ok := vals[0].(string)
			v, err := fn([]byte(old), ok)
			if err != nil {
				fnErr = err
				return err
			}
			now := s.now().UnixMilli()
			d := now + s.lifetime.Milliseconds()
			if ds, ok := vals[1].(string); ok {
				d, _ = strconv.ParseInt(ds, 10, 64)
			}
			_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
				if v == nil {
					p.HDel(ctx, rkey, "v:"+key)
				} else {
					p.HSet(ctx, rkey, "v:"+key, v, "d", d)
				}
				p.PExpire(ctx, rkey, time.Duration(max(min(s.idle.Milliseconds(), d-now), 1))*time.Millisecond)
				return nil
			})
			return err
		}, rkey)
		switch {
		case fnErr != nil:
			return fnErr
		case errors.Is(err, redis.TxFailedErr):
			if err := backoff(ctx, attempt); err != nil {
				return err
			}
			continue
		case err != nil:
			return s.fail("update", sessionID, err)
		}
		return nil
	}
}

// backoff waits a little before the next attempt after a conflict: nothing
// at first, then up to 1ms growing to 16ms, jittered.
func backoff(ctx context.Context, attempt int) error {
	if attempt == 0 {
		return ctx.Err()
	}
	var b [1]byte
	_, _ = rand.Read(b[:])
	d := time.Duration(1<<min(attempt-1, 4)) * time.Millisecond * time.Duration(int(b[0])+1) / 256
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// newVersion returns a random version tag (16 hex digits).
func newVersion() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Delete implements [session.StateStore]: one DEL of the session's key, seen at once
// by every replica.
func (s *Store) Delete(ctx context.Context, sessionID string) error {
	return s.fail("delete", sessionID, s.rdb.Del(ctx, s.Key(sessionID)).Err())
}

// lock takes the in-process lock of k, or returns ctx's error, or the
// store-unavailable error of the holder that failed while this call
// waited.
func (s *Store) lock(ctx context.Context, k string) (*keyLock, error) {
	s.mu.Lock()
	l := s.locks[k]
	if l == nil {
		l = &keyLock{ch: make(chan struct{}, 1)}
		s.locks[k] = l
	}
	l.refs++
	s.mu.Unlock()
	start := time.Now()
	select {
	case l.ch <- struct{}{}:
	case <-ctx.Done():
		s.release(k, l)
		return nil, ctx.Err()
	}
	if l.failErr != nil && !l.failedAt.Before(start) {
		err := l.failErr
		<-l.ch
		s.release(k, l)
		return nil, err
	}
	return l, nil
}

// unlock releases k's lock after an Update that ended with err, which the
// waiters see if it says the store is unavailable.
func (s *Store) unlock(k string, l *keyLock, err error) {
	if errors.Is(err, session.ErrStoreUnavailable) {
		l.failErr, l.failedAt = err, time.Now()
	} else {
		l.failErr = nil
	}
	<-l.ch
	s.release(k, l)
}

func (s *Store) release(k string, l *keyLock) {
	s.mu.Lock()
	if l.refs--; l.refs == 0 {
		delete(s.locks, k)
	}
	s.mu.Unlock()
}

// keyLock serializes the Updates of one (session id, key) in this process:
// a channel of one slot, so that waiting can end with the context.
type keyLock struct {
	ch       chan struct{}
	refs     int       // guarded by Store.mu
	failErr  error     // guarded by holding ch: the last holder's store-unavailable error
	failedAt time.Time // when failErr happened
}

var _ session.StateStore = (*Store)(nil)
