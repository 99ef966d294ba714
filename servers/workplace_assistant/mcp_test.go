package workplace_test

// The MCP door in front of workplace_assistant, as gymkit serve composes an
// instance with expose_tools_over_mcp: true (servertest.Options.MCP).

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gymkit/gymkit/server/servertest"
	workplace "github.com/gymkit/gymkit/servers/workplace_assistant"
)

const tokenHeader = "X-NeMo-Gym-Session-Token"

type mcpHost struct {
	ts  *servertest.Server
	ids atomic.Int64
}

func newMCPHost(t *testing.T) *mcpHost {
	t.Helper()
	ts := servertest.New(t, newWorkplace(t), servertest.Options{ServerType: workplace.Name, Name: workplace.Name, MCP: true})
	return &mcpHost{ts: ts}
}

// mcpRollout is one seeded rollout: its cookie jar and its MCP token.
type mcpRollout struct {
	h     *mcpHost
	t     *testing.T
	ro    *servertest.Rollout
	token string
}

func (h *mcpHost) seed(t *testing.T, body string) *mcpRollout {
	t.Helper()
	ro := h.ts.Rollout()
	res := ro.Post("/seed_session", body)
	if res.Status != 200 {
		t.Fatalf("seed: %d %s", res.Status, res.Body)
	}
	var seed struct {
		MCP struct {
			ServerName string            `json:"server_name"`
			Headers    map[string]string `json:"headers"`
		} `json:"mcp"`
	}
	if err := json.Unmarshal(res.Body, &seed); err != nil || seed.MCP.ServerName != workplace.Name {
		t.Fatalf("seed answer %s: %v", res.Body, err)
	}
	r := &mcpRollout{h: h, t: t, ro: ro, token: seed.MCP.Headers[tokenHeader]}
	if r.token == "" {
		t.Fatalf("seed: no token: %s", res.Body)
	}
	return r
}

// rpc sends one JSON-RPC request with the rollout's token and returns its
// result.
func (r *mcpRollout) rpc(method string, params any) json.RawMessage {
	r.t.Helper()
	p, _ := json.Marshal(params)
	msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, r.h.ids.Add(1), method, p)
	res := r.ro.Do("POST", "/mcp", map[string]string{
		"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"Mcp-Protocol-Version": "2025-06-18", tokenHeader: r.token,
	}, msg)
	var out struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(res.Body, &out); res.Status != 200 || err != nil || out.Error != nil {
		r.t.Fatalf("%s: %d %s", method, res.Status, res.Body)
	}
	return out.Result
}

type toolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

func (r toolResult) text() string {
	var s []string
	for _, c := range r.Content {
		s = append(s, c.Text)
	}
	return strings.Join(s, "\n")
}

// call is tools/call name with arguments (a JSON object text).
func (ro *mcpRollout) call(name, arguments string) toolResult {
	ro.t.Helper()
	raw := ro.rpc("tools/call", map[string]any{"name": name, "arguments": json.RawMessage(arguments)})
	var r toolResult
	if err := json.Unmarshal(raw, &r); err != nil {
		ro.t.Fatalf("tools/call %s: %s: %v", name, raw, err)
	}
	return r
}

func (ro *mcpRollout) listTools() []struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
} {
	ro.t.Helper()
	var r struct {
		Tools []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(ro.rpc("tools/list", map[string]any{}), &r); err != nil {
		ro.t.Fatal(err)
	}
	return r.Tools
}

// toolNames are the 27 tools of tools.json, sorted.
func toolNames(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(dataPath(t, "tools.json"))
	if err != nil {
		t.Fatal(err)
	}
	var specs []struct{ Name string }
	if err := json.Unmarshal(b, &specs); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range specs {
		names = append(names, s.Name)
	}
	slices.Sort(names)
	return names
}

func TestSection9ObservedOutputsMCP(t *testing.T) {
	t.Parallel()
	h := newMCPHost(t)
	names := toolNames(t)
	for _, b := range section9 {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			ro := h.seed(t, `{}`)
			for i, s := range b.steps {
				res := ro.call(s.tool, s.body)
				want, wantErr := s.want, false
				if !slices.Contains(names, s.tool) {
					// An unknown name never reaches the dispatcher on this
					// door (contract d.6 step 1).
					want = "Unknown tool: '" + s.tool + "'. Available tools: ['" + strings.Join(names, "', '") + "']"
					wantErr = true
				}
				got := res.text()
				ok := got == want
				if s.prefix {
					ok = strings.HasPrefix(got, want)
				}
				if res.IsError != wantErr || !ok {
					t.Errorf("step %d: tools/call %s %s\n got: isError=%v %s\nwant: isError=%v %s", i+1, s.tool, s.body, res.IsError, got, wantErr, want)
				}
				if !wantErr && !s.prefix && string(res.StructuredContent) != want {
					t.Errorf("step %d: structuredContent %s, want %s", i+1, res.StructuredContent, want)
				}
			}
		})
	}
}

func TestMCPToolsListAndSchemas(t *testing.T) {
	t.Parallel()
	h := newMCPHost(t)
	ro := h.seed(t, `{"verifier_metadata":{"other":1}}`)
	tools := ro.listTools()
	var got []string
	for _, tl := range tools {
		got = append(got, tl.Name)
	}
	if want := toolNames(t); !slices.Equal(got, want) {
		t.Fatalf("tools/list names %v\nwant %v", got, want)
	}
	b, _ := os.ReadFile(dataPath(t, "tools.json"))
	var specs []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	}
	if err := json.Unmarshal(b, &specs); err != nil {
		t.Fatal(err)
	}
	for _, sp := range specs {
		i := slices.IndexFunc(tools, func(x struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"inputSchema"`
		}) bool {
			return x.Name == sp.Name
		})
		if tools[i].Description != sp.Description || !sameJSON(t, tools[i].InputSchema, sp.Parameters) {
			t.Errorf("%s: description %q schema %s\nwant %q %s", sp.Name, tools[i].Description, tools[i].InputSchema, sp.Description, sp.Parameters)
		}
	}
}

func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}

func TestMCPAllowListNarrowsAndRefuses(t *testing.T) {
	t.Parallel()
	h := newMCPHost(t)
	ro := h.seed(t, `{"verifier_metadata":{"allowed_tools":["email_search_emails","email_send_email","no_such_tool"]}}`)
	var got []string
	for _, tl := range ro.listTools() {
		got = append(got, tl.Name)
	}
	if want := []string{"email_search_emails", "email_send_email"}; !slices.Equal(got, want) {
		t.Errorf("tools/list %v, want %v", got, want)
	}
	res := ro.call("calendar_search_events", `{"query":"sync"}`)
	if want := "Tool 'calendar_search_events' is not allowed for this session."; !res.IsError || res.text() != want {
		t.Errorf("refused call: isError=%v %q, want %q", res.IsError, res.text(), want)
	}
	res = ro.call("email_send_email", `{"recipient":"a@b.co","subject":"s","body":"b"}`)
	if res.IsError || res.text() != `{"output":"Email sent successfully."}` {
		t.Errorf("allowed call: %v %s", res.IsError, res.text())
	}
	// An empty list allows nothing; null is unrestricted.
	none := h.seed(t, `{"verifier_metadata":{"allowed_tools":[]}}`)
	if tools := none.listTools(); len(tools) != 0 {
		t.Errorf("empty allow-list lists %d tools", len(tools))
	}
	all := h.seed(t, `{"verifier_metadata":{"allowed_tools":null}}`)
	if tools := all.listTools(); len(tools) != 27 {
		t.Errorf("null allow-list lists %d tools, want 27", len(tools))
	}
}

func TestMCPSessionIsTheRollouts(t *testing.T) {
	t.Parallel()
	h := newMCPHost(t)
	ro := h.seed(t, `{}`)
	// A write over MCP is seen over HTTP in the same session, and verify
	// scores the trajectory with names as Claude Code records them.
	if res := ro.call("email_send_email", `{"recipient":"a@b.co","subject":"s","body":"b"}`); res.IsError {
		t.Fatalf("send: %s", res.text())
	}
	res := ro.ro.Post("/email_search_emails", `{"query":"a@b.co"}`)
	if res.Status != 200 || !strings.Contains(string(res.Body), `"total_emails":1`) {
		t.Errorf("HTTP search in the same session: %d %s", res.Status, res.Body)
	}
	body := verifyBody([]call{c("mcp__workplace_assistant__email_send_email", `{"recipient":"a@b.co","subject":"s","body":"b"}`)},
		[]call{c("email_send_email", `{"recipient":"a@b.co","subject":"s","body":"b"}`)})
	res = ro.ro.Post("/verify", body)
	if b := string(res.Body); res.Status != 200 || !strings.HasSuffix(b, `"reward":1.0}`) ||
		!strings.Contains(b, `"name":"mcp__workplace_assistant__email_send_email"`) {
		t.Errorf("verify: %d %s", res.Status, b)
	}
	// verify released the world: the rollout is over.
	after := ro.call("email_search_emails", `{}`)
	if want := "HTTP 400 from POST /email_search_emails: Session not initialized. Please call seed_session first."; !after.IsError || after.text() != want {
		t.Errorf("call after verify: isError=%v %q, want %q", after.IsError, after.text(), want)
	}
}

// A full world store refuses a new world on both doors with the same 503,
// configured by its YAML keys; reads and the kept world go on.
func TestMCPFullWorldStore(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ config, limit string }{
		{"max_live_worlds: 1", "max_live_worlds"},
		{"max_world_bytes: 30000", "max_world_bytes"}, // a world with one sent email: about 17 KB
	} {
		s := newWorkplace(t)
		h := &mcpHost{ts: servertest.New(t, s, servertest.Options{ServerType: workplace.Name, Name: workplace.Name, MCP: true, Config: tc.config})}
		a, b := h.seed(t, `{}`), h.seed(t, `{}`)
		if res := a.call("email_send_email", `{"recipient":"a@b.co","subject":"from-a","body":"b"}`); res.IsError {
			t.Fatalf("%s: a's send: %s", tc.config, res.text())
		}
		if res := b.call("company_directory_find_email_address", `{"name":"aisha"}`); res.IsError {
			t.Errorf("%s: b's read: %s", tc.config, res.text())
		}
		detail := "Too many live rollouts: " + tc.limit + " is reached (the worlds of other rollouts are kept, not evicted); retry after 10 s"
		res := b.call("email_send_email", `{"recipient":"a@b.co","subject":"from-b","body":"b"}`)
		if want := "HTTP 503 from POST /email_send_email: " + detail; !res.IsError || res.text() != want {
			t.Errorf("%s: MCP send with a full store: isError=%v %q, want %q", tc.config, res.IsError, res.text(), want)
		}
		hres := b.ro.Post("/email_send_email", `{"recipient":"a@b.co","subject":"from-b","body":"b"}`)
		if want := `{"detail":"` + detail + `"}`; hres.Status != 503 || string(hres.Body) != want || hres.Header.Get("Retry-After") != "10" {
			t.Errorf("%s: HTTP send with a full store: %d %s Retry-After=%q", tc.config, hres.Status, hres.Body, hres.Header.Get("Retry-After"))
		}
		if got := a.call("email_search_emails", `{"query":"from-a"}`).text(); !strings.Contains(got, `"total_emails":1`) {
			t.Errorf("%s: a's world lost its email: %s", tc.config, got)
		}
		if s.LiveWorlds() != 1 {
			t.Errorf("%s: %d worlds, want 1", tc.config, s.LiveWorlds())
		}
	}
}
