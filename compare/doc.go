// Package compare checks a port of a NeMo Gym resources server against its
// original: it replays dataset rows or recorded rollouts against a
// reference server (the Python original, by URL) and a gymkit instance,
// each side as NeMo's agents drive it, and compares the two answers of
// every step. It is gymkit compare:
//
//	gymkit compare --reference http://127.0.0.1:8000 --config FILE --input rows.jsonl [--door http|mcp] [--allow FILE] [--report FILE]
//
// Each side runs the row's rollout through gymkit rollout's own client
// ([rollout.Client]): POST /seed_session with the row, the row's calls in
// order through the door (POST /<tool> with the rollout's cookie, as
// simple_agent does, or MCP tools/call with the side's own token from its
// own seed, as claude_code_agent does), then POST /verify; the cookie jar
// is replaced by each answer, and every request is bounded in time and
// answer size ([rollout.DefaultRequestTimeout],
// [rollout.DefaultMaxAnswerBytes]). The rollouts run one at a time, the
// reference's first; both sides get the same created_at, so their verify
// bodies are the same unless an earlier answer differed.
//
// For each step it compares the status, the Content-Type, the Set-Cookie
// attributes (not the cookie name's first part, which NeMo takes from the
// Python class and gymkit from the server type, nor the value) and the
// body: bytes, then, when both are JSON, the values with Python's number
// forms kept (framework.ParseJSON keeps each number's literal), so that a
// difference reads "body $.reward: 1 vs 1.0 (number form)", with missing
// and extra keys and items, other types and another key order. Each side's
// per-rollout values (its MCP token, its cookies' values and the session
// ids they carry) are masked before the bodies are compared.
//
// An allow-list file ([LoadAllowList]) accepts known differences: each
// rule names a route, a JSON path in the body or a header, and the reason
// (fields NeMo takes from the clock, say; docs/examples/compare-allow.yaml).
// [Run] returns a [Report]: printed readably as it goes, written as JSON
// with [Report.WriteJSON], and [Report.OK] when every difference is
// allowed.
package compare
