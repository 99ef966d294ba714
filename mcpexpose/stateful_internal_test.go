package mcpexpose

import (
	"encoding/json"
	"testing"
	"time"
)

// The session record's rules on a fake clock: owner binding, idle expiry
// (paused while a request is in flight), the per-principal bound and its
// release.
func TestMCPSessionsRecord(t *testing.T) {
	t.Parallel()
	now := time.Unix(0, 0)
	m := newMCPSessions(time.Minute, 2)
	m.now = func() time.Time { return now }
	if !m.reserve("alice") {
		t.Fatal("first reserve refused")
	}
	m.add("s1", "alice")
	m.leave("s1", false)
	if m.enter("s1", "bob", true) {
		t.Error("bob entered alice's session")
	}
	if !m.enter("s1", "alice", true) {
		t.Fatal("alice could not enter her session")
	}
	now = now.Add(time.Hour) // in flight: not idle
	if !m.enter("s1", "alice", false) {
		t.Error("a session with a request in flight idled out")
	}
	m.leave("s1", false)
	now = now.Add(time.Minute + time.Second)
	if m.enter("s1", "alice", true) {
		t.Error("an idle session was entered")
	}
	if !m.reserve("alice") || !m.reserve("alice") || m.reserve("alice") {
		t.Error("the bound of 2 per principal was not kept after the idle session was dropped")
	}
	m.release("alice")
	if !m.reserve("alice") {
		t.Error("a released reservation was not given back")
	}
	if !m.reserve("bob") {
		t.Error("bob is bounded by alice's sessions")
	}
}

// principalKey keeps types apart and never panics on uncomparable values.
func TestPrincipalKey(t *testing.T) {
	t.Parallel()
	if principalKey("1") == principalKey(1) {
		t.Error(`"1" and 1 are one principal`)
	}
	if principalKey(nil) != "" || principalKey(map[string]int{"a": 1}) == "" {
		t.Error("nil or a map principal")
	}
}

// FuzzProgressCall: the body sniffing of a progress call never panics, and
// only a tools/call with a non-null progress token is one.
func FuzzProgressCall(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":"t"}}}`))
	f.Add([]byte(`{"method":"tools/call","params":{"_meta":{"progressToken":null}}}`))
	f.Add([]byte(`{"method":"tools/list","params":{"_meta":{"progressToken":1}}}`))
	f.Add([]byte(`[{"method":"tools/call"}]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		if progressCall(body) && !isJSONToolsCall(body) {
			t.Errorf("progressCall(%q) without a tools/call", body)
		}
		_ = eventData(body)
		_ = isResponse(body)
	})
}

func isJSONToolsCall(body []byte) bool {
	var m struct {
		Method string `json:"method"`
	}
	return json.Unmarshal(body, &m) == nil && m.Method == "tools/call"
}

// eventData reads the data of the SDK's events; isResponse tells the
// answer from a notification.
func TestEventData(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		event, data string
		response    bool
	}{
		{"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n", `{"jsonrpc":"2.0","id":1,"result":{}}`, true},
		{"event: message\nid: s_1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n", `{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`, false},
		{"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":1,\"message\":\"x\"}}\n\n", `{"jsonrpc":"2.0","id":2,"error":{"code":1,"message":"x"}}`, true},
		{"event: prime\nid: s_0\ndata: \n\n", ``, false},
	} {
		d := eventData([]byte(tc.event))
		if string(d) != tc.data || isResponse(d) != tc.response {
			t.Errorf("eventData(%q) = %s (response %v), want %s (%v)", tc.event, d, isResponse(d), tc.data, tc.response)
		}
	}
}
