package session

import "errors"

// ErrStoreUnavailable is in the chain of every error a shared state store
// returns when it cannot be reached or does not answer in time (a refused
// or timed-out connection, a read past redisstore.Options.ReadTimeout, a full
// connection pool, a store that is loading or read-only). The framework
// answers a tool whose error wraps it 503, {"detail": "<error text>"} on
// the HTTP door and an isError result "HTTP 503 from POST /<tool>: ..." on
// the MCP door; the text names the store. The call may be retried: the
// store recovers by itself when the server returns. Test with errors.Is.
var ErrStoreUnavailable = errors.New("the rollout state store is unavailable")
