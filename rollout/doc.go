// Package rollout replays dataset rows against a gymkit resources-server
// instance, through either door, and writes what NeMo Gym's rollout
// collector writes. It is gymkit rollout:
//
//	gymkit rollout --config FILE --input rows.jsonl --output results.jsonl [--door http|mcp]
//
// For each row and repeat, [Run] does what a NeMo agent does without a
// model: POST /seed_session with the row (as the agents send it, with
// _ng_task_index, _ng_rollout_index and agent_ref), replays the row's
// function calls in order through the chosen door, then POST /verify with
// the row and a Responses API "response" holding the calls, their outputs
// as the server returned them and the row's final assistant message.
//
// The calls are the function_call items of the row's response.output (a
// recorded rollout; its last assistant message is kept), else its
// ground_truth list of {"name", "arguments"}. A row with neither is run all
// the same, and [Run] warns about it, one line per row (Options.Warn).
//
//   - DoorHTTP is simple_agent: POST /<tool> with the parsed arguments and
//     the rollout's cookie; the output is the raw answer, any status
//     (contract a.6). Arguments that are not JSON are not called; the output
//     is {"error": "Invalid tool call arguments: JSONDecodeError(...)"}.
//   - DoorMCP is claude_code_agent: tools/call over Streamable HTTP (the
//     official go-sdk client) at the seed's mcp url_path with its session
//     token; the calls are recorded as mcp__<server_name>__<tool> and the
//     output is the result's text, isError or not (contract d.9). /verify
//     goes with the seed's cookie.
//
// A tool's error answer is an output, as in NeMo. A rollout fails only when
// the seed or verify answer is not a 2xx JSON object, or a request cannot
// be made or gets no complete answer within the client's bounds (a request
// timeout, [DefaultRequestTimeout], an answer size, [DefaultMaxAnswerBytes],
// and the JSON values of an answer parsed, [DefaultMaxAnswerValues]); it is
// then written to the failures file with a
// _ng_failure_class of [FailureSeed], [FailureVerify], [FailureTransport],
// [FailureTimeout] or [FailureTooLarge], "reward": 0.0 and
// "_ng_failure_error". The files, their key order and the prints follow
// python-compat section 2; see [Run].
//
// [Client] is the agent side alone: one rollout of one row, each step
// reported as an [Exchange] (gymkit compare drives two instances with it).
// [ReadRows] reads and materializes the rows as Run does.
//
// What a rollout holds: its answers, each read into one buffer (of its
// Content-Length when it has one). The verify answer is parsed only at its
// top level (a lazy tree of internal/pyjson) and written out to the results
// file from its text, so a rollout peaks at about 4.5 times its verify
// answer, whatever the answer's shape (docs/cli.md, "gymkit rollout's
// bounds", has the measured figures); [Client.Rollout] returns the answer
// as a whole tree, which costs 72 bytes per JSON value. A run keeps each
// successful result without response and responses_create_params until it
// posts them to /aggregate_metrics, as NeMo's collector does.
//
// [Start] serves a configured instance in process on a loopback port, so
// that a run needs no separate server.
package rollout
