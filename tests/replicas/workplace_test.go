package replicas

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gymkit/gymkit/internal/testkit/redistest"
	"github.com/gymkit/gymkit/mcpexpose"
	"github.com/gymkit/gymkit/server"
)

const (
	workplaceConfig = "servers/workplace_assistant/configs/workplace_assistant.yaml"
	workplaceBlock  = "workplace_assistant.resources_servers.workplace_assistant."
)

// TestWorkplaceMemoryWorldsRefusedOnRedis: world_state: memory with
// session.store: redis would give each replica its own world of a
// rollout; the instance refuses to start and says what to set. (No Redis
// needed: an unreachable store is logged at start, not fatal.)
func TestWorkplaceMemoryWorldsRefusedOnRedis(t *testing.T) {
	t.Parallel()
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	data := filepath.Join(root, "..", "shared", "data", "nemo-gym", "workplace_assistant")
	ov := []string{workplaceBlock + "session_secret=" + secret, workplaceBlock + "mcp_token_secret=" + secret,
		workplaceBlock + "data_dir=" + filepath.Join(data, "csv_data"), workplaceBlock + "tools_file=" + filepath.Join(data, "tools.json"),
		workplaceBlock + "session.store=redis", workplaceBlock + "session.url=redis://127.0.0.1:1/0", workplaceBlock + "world_state=memory"}
	_, err := server.New(context.Background(), server.Options{
		Files: []string{workplaceConfig}, Overrides: ov, WorkDir: root,
		LookupEnv: func(string) (string, bool) { return "", false },
		Logger:    slog.New(slog.DiscardHandler), Ready: io.Discard,
	})
	if err == nil || !strings.Contains(err.Error(), "world_state: memory") || !strings.Contains(err.Error(), "use world_state: session") {
		t.Fatalf("server.New: %v, want the world_state: memory refusal", err)
	}
}

// startWorkplace serves workplace_assistant on a free port with the extra
// overrides (keys of its instance block), and returns its base URL.
func startWorkplace(t *testing.T, overrides ...string) string {
	t.Helper()
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	data := filepath.Join(root, "..", "shared", "data", "nemo-gym", "workplace_assistant")
	ov := []string{workplaceBlock + "session_secret=" + secret, workplaceBlock + "mcp_token_secret=" + secret,
		workplaceBlock + "data_dir=" + filepath.Join(data, "csv_data"), workplaceBlock + "tools_file=" + filepath.Join(data, "tools.json")}
	for _, o := range overrides {
		ov = append(ov, workplaceBlock+o)
	}
	return serveConfig(t, workplaceConfig, ov)
}

// exampleRow is the first row of NeMo Gym's workplace_assistant
// example.jsonl (the dataset row a rollout is seeded with).
func exampleRow(t *testing.T) map[string]any {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "..", "shared", "data", "nemo-gym", "workplace_assistant", "example.jsonl"))
	if err != nil {
		t.Fatalf("shared data missing: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	if !sc.Scan() {
		t.Fatal("example.jsonl is empty")
	}
	var row map[string]any
	if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
		t.Fatal(err)
	}
	return row
}

func seedRow(t *testing.T, base string, row map[string]any) *rollout {
	t.Helper()
	code, body, setCookie := post(t, base, "/seed_session", nil, row)
	if code != 200 {
		t.Fatalf("seed: %d %s", code, body)
	}
	var seeded struct {
		MCP struct {
			Headers map[string]string `json:"headers"`
		} `json:"mcp"`
	}
	if err := json.Unmarshal(body, &seeded); err != nil {
		t.Fatal(err)
	}
	return &rollout{cookie: strings.SplitN(setCookie, ";", 2)[0], token: seeded.MCP.Headers[mcpexpose.TokenHeader]}
}

// verifyBody is the row's /verify body with the given calls as the
// response's function_call items.
func verifyBody(row map[string]any, calls [][2]string) map[string]any {
	output := []any{}
	for i, c := range calls {
		output = append(output, map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_%d", i), "call_id": fmt.Sprintf("call_%d", i),
			"name": c[0], "arguments": c[1], "status": "completed"})
	}
	body := map[string]any{}
	for k, v := range row {
		body[k] = v
	}
	body["response"] = map[string]any{"id": "resp", "created_at": 1.0, "model": "m", "object": "response", "output": output,
		"parallel_tool_calls": true, "tool_choice": "auto", "tools": []any{}}
	return body
}

func rewardOf(t *testing.T, base string, ro *rollout, body map[string]any) float64 {
	t.Helper()
	code, out, _ := post(t, base, "/verify", ro, body)
	var v struct{ Reward *float64 }
	if code != 200 || json.Unmarshal(out, &v) != nil || v.Reward == nil {
		t.Fatalf("verify on %s: %d %s", base, code, out)
	}
	return *v.Reward
}

// TestWorkplaceTwoReplicas (docs/deployment.md): two workplace_assistant
// replicas with world_state: session on one Redis. Seeded on A with a real
// dataset row; the row's ground-truth reply and 49 emails sent in parallel,
// split across A and B and across the HTTP door (cookie) and the MCP door
// (token, go-sdk client); every email is then found on B, over both doors,
// each once; verify on A scores what a lone replica with the memory store
// scores for the same body, and ends the rollout on B too.
func TestWorkplaceTwoReplicas(t *testing.T) {
	srv := redistest.Start(t)
	redis := []string{"session.store=redis", "session.url=" + srv.URL(), "session.prefix=" + redistest.Prefix(t)}
	// A names world_state: session; B takes the default, which
	// session.store: redis makes session too.
	a, b := startWorkplace(t, append(redis, "world_state=session")...), startWorkplace(t, redis...)
	lone := startWorkplace(t) // memory store, world_state: memory

	row := exampleRow(t)
	var truth [][2]string
	for _, g := range row["ground_truth"].([]any) {
		m := g.(map[string]any)
		truth = append(truth, [2]string{m["name"].(string), m["arguments"].(string)})
	}
	ro := seedRow(t, a, row)
	if ro.token == "" {
		t.Fatal("no MCP token in the seed answer")
	}
	mcpA, mcpB := mcpClient(t, a, ro.token), mcpClient(t, b, ro.token)

	const n = 50
	calls := make([][2]string, n)
	for i := range n {
		calls[i] = [2]string{"email_send_email", fmt.Sprintf(`{"recipient":"r%d@atlas.com","subject":"replica-%02d","body":"sent %d"}`, i, i, i)}
	}
	calls[0] = truth[0] // the row's reply: a change of the emails table too
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			base, cs := a, mcpA
			if i%2 == 1 {
				base, cs = b, mcpB
			}
			var args map[string]any
			_ = json.Unmarshal([]byte(calls[i][1]), &args)
			if i%4 < 2 {
				code, out, _ := post(t, base, "/"+calls[i][0], ro, args)
				if code != 200 || !strings.Contains(string(out), "successfully") {
					t.Errorf("HTTP %s %d on %s: %d %s", calls[i][0], i, base, code, out)
				}
				return
			}
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: calls[i][0], Arguments: args})
			if err != nil || res.IsError || !strings.Contains(mcpText(res), "successfully") {
				t.Errorf("MCP %s %d on %s: %v %+v", calls[i][0], i, base, err, res)
			}
		})
	}
	wg.Wait()

	search := map[string]any{"query": "replica-", "page_size": 100}
	code, out, _ := post(t, b, "/email_search_emails", ro, search)
	for i := 1; i < n; i++ {
		if k := strings.Count(string(out), fmt.Sprintf(`replica-%02d"`, i)); k != 1 {
			t.Errorf("replica-%02d found %d times on B", i, k)
		}
	}
	if code != 200 || !strings.Contains(string(out), fmt.Sprintf(`"total_emails":%d`, n-1)) {
		tail := out[max(0, len(out)-120):]
		t.Fatalf("search on B: %d, want total_emails %d: ...%s", code, n-1, tail)
	}
	res, err := mcpB.CallTool(context.Background(), &mcp.CallToolParams{Name: "email_search_emails", Arguments: map[string]any{"query": "I will get back to you tomorrow"}})
	if err != nil || res.IsError || !strings.Contains(mcpText(res), `"total_emails":1`) {
		t.Errorf("the row's reply over MCP on B: %v %q", err, mcpText(res))
	}

	// verify: the same bodies score the same on A as on a lone replica.
	for _, c := range []struct {
		name  string
		calls [][2]string
		want  float64
	}{{"ground truth", truth, 1.0}, {"every call made", calls, 0.0}} {
		body := verifyBody(row, c.calls)
		loneRO := seedRow(t, lone, row)
		if got := rewardOf(t, lone, loneRO, body); got != c.want {
			t.Errorf("%s on a lone replica: reward %v, want %v", c.name, got, c.want)
		}
		if got := rewardOf(t, a, ro, body); got != c.want {
			t.Errorf("%s on A: reward %v, want %v (the lone replica's)", c.name, got, c.want)
		}
	}
	// verify on A ended the rollout for B too.
	if code, out, _ := post(t, b, "/email_search_emails", ro, search); code != 400 || !strings.Contains(string(out), "Session not initialized") {
		t.Errorf("a call on B after verify on A: %d %s", code, out)
	}
}

// TestWorkplaceThroughAnOutage: two workplace_assistant replicas on one
// Redis (world_state: session by default); Redis stops mid-rollout: writes
// and reads fail fast on both replicas and both doors with a 503 (isError
// over MCP) naming the store, nothing half-written; after it restarts the
// rollout goes on with exactly the emails sent before the outage.
func TestWorkplaceThroughAnOutage(t *testing.T) {
	srv := redistest.Start(t)
	redis := []string{"session.store=redis", "session.url=" + srv.URL(), "session.prefix=" + redistest.Prefix(t)}
	a, b := startWorkplace(t, redis...), startWorkplace(t, redis...)
	ro := seedRow(t, a, map[string]any{})
	mcpA, mcpB := mcpClient(t, a, ro.token), mcpClient(t, b, ro.token)
	send := func(base, subject string) (int, []byte) {
		code, out, _ := post(t, base, "/email_send_email", ro, map[string]any{"recipient": "o@atlas.com", "subject": subject, "body": "b"})
		return code, out
	}
	found := func(base string) string {
		code, out, _ := post(t, base, "/email_search_emails", ro, map[string]any{"query": "outage-", "page_size": 100})
		if code != 200 {
			t.Fatalf("search on %s: %d %s", base, code, out)
		}
		return string(out)
	}
	for i, base := range []string{a, b, a} {
		if code, out := send(base, fmt.Sprintf("outage-before-%d", i)); code != 200 {
			t.Fatalf("send %d on %s: %d %s", i, base, code, out)
		}
	}

	srv.Stop()
	store := fmt.Sprintf("redis at 127.0.0.1:%d", srv.Port)
	for _, base := range []string{a, b} {
		start := time.Now()
		if code, out := send(base, "outage-during"); code != http.StatusServiceUnavailable || !strings.Contains(string(out), store) {
			t.Errorf("send on %s with Redis down: %d %s; want 503 naming the store", base, code, out)
		}
		if code, out, _ := post(t, base, "/email_search_emails", ro, map[string]any{"query": "outage-"}); code != http.StatusServiceUnavailable {
			t.Errorf("search on %s with Redis down: %d %s; want 503", base, code, out)
		}
		if d := time.Since(start); d > 30*time.Second { // two calls, each bounded by the dial and read timeouts
			t.Errorf("the failing calls on %s took %v", base, d)
		}
	}
	for _, cs := range []*mcp.ClientSession{mcpA, mcpB} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "email_send_email",
			Arguments: map[string]any{"recipient": "o@atlas.com", "subject": "outage-during-mcp", "body": "b"}})
		if err != nil || !res.IsError || !strings.Contains(mcpText(res), "HTTP 503") || !strings.Contains(mcpText(res), "state store is unavailable") {
			t.Errorf("MCP send with Redis down: %v %q; want isError HTTP 503 naming the store", err, mcpText(res))
		}
	}

	srv.Restart(t)
	for _, base := range []string{a, b} {
		out := found(base)
		if !strings.Contains(out, `"total_emails":3`) || strings.Contains(out, "outage-during") {
			t.Errorf("after the outage on %s: want the 3 emails sent before it, none sent during it: %s", base, out[max(0, len(out)-200):])
		}
	}
	res, err := mcpB.CallTool(context.Background(), &mcp.CallToolParams{Name: "email_send_email",
		Arguments: map[string]any{"recipient": "o@atlas.com", "subject": "outage-after", "body": "b"}})
	if err != nil || res.IsError {
		t.Fatalf("MCP send on B after the outage: %v %q", err, mcpText(res))
	}
	if out := found(a); !strings.Contains(out, `"total_emails":4`) || !strings.Contains(out, "outage-after") {
		t.Errorf("on A after a send on B: %s", out[max(0, len(out)-200):])
	}
}
