package breaktest

// Hostile tests of the session lifecycle (docs/security.md, "What is
// stored, and when"): /close_session racing the
// rollout's own tool calls on workplace_assistant, on both doors.

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/config/configtest"
	"github.com/gymkit/gymkit/server"
	"github.com/gymkit/gymkit/server/servertest"
	workplace "github.com/gymkit/gymkit/servers/workplace_assistant"
)

const notSeeded = "Session not initialized. Please call seed_session first."

// newWorkplace returns a workplace_assistant server over the shared NeMo
// data (../shared/data/nemo-gym/workplace_assistant), skipping the test
// when the data is missing.
func newWorkplace(t *testing.T) *workplace.Workplace {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	data := filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "data", "nemo-gym", "workplace_assistant")
	if _, err := os.Stat(data); err != nil {
		t.Skipf("shared workplace data missing: %v", err)
	}
	s := workplace.New()
	s.DataDir = config.Path(filepath.Join(data, "csv_data"))
	s.ToolsFile = config.Path(filepath.Join(data, "tools.json"))
	return s
}

// newWorkplaceServer serves workplace_assistant (both doors) with the
// shared NeMo data.
func newWorkplaceServer(t *testing.T, cfg string) (*servertest.Server, *workplace.Workplace) {
	t.Helper()
	s := newWorkplace(t)
	return servertest.New(t, s, servertest.Options{ServerType: workplace.Name, Name: workplace.Name, MCP: true, Config: cfg}), s
}

// wpClient is one raw rollout: a cookie and a token, sent as given.
type wpClient struct {
	url    string
	cookie string // "name=value"
	token  string
}

var plainClient = &http.Client{}

func (c *wpClient) post(t *testing.T, path string, headers map[string]string, body string) (int, string, http.Header) {
	req, err := http.NewRequest("POST", c.url+path, strings.NewReader(body))
	if err != nil {
		t.Error(err)
		return 0, "", nil
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	if c.cookie != "" {
		req.Header.Set("Cookie", c.cookie)
	}
	resp, err := plainClient.Do(req)
	if err != nil {
		t.Error(err)
		return 0, "", nil
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

// seedWP seeds a new rollout and returns its cookie and token.
func seedWP(t *testing.T, url string) *wpClient {
	c := &wpClient{url: url}
	st, body, h := c.post(t, "/seed_session", nil, `{}`)
	if st != 200 {
		t.Errorf("seed: %d %s", st, body)
	}
	c.cookie, _, _ = strings.Cut(h.Get("Set-Cookie"), ";")
	var seed struct {
		MCP struct {
			Headers map[string]string `json:"headers"`
		} `json:"mcp"`
	}
	if err := json.Unmarshal([]byte(body), &seed); err != nil {
		t.Errorf("seed: %s: %v", body, err)
	}
	c.token = seed.MCP.Headers["X-NeMo-Gym-Session-Token"]
	return c
}

// mcpTool calls a tool over MCP with the rollout's token (no cookie) and
// returns the result's text and isError.
func (c *wpClient) mcpTool(t *testing.T, name, args string) (string, bool) {
	nc := &wpClient{url: c.url}
	st, body, _ := nc.post(t, "/mcp", map[string]string{
		"Accept": "application/json, text/event-stream", "X-NeMo-Gym-Session-Token": c.token,
	}, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"`+name+`","arguments":`+args+`}}`)
	var out struct {
		Result struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
			IsError bool `json:"isError"`
		} `json:"result"`
	}
	if st != 200 || json.Unmarshal([]byte(body), &out) != nil || len(out.Result.Content) == 0 {
		t.Errorf("MCP %s: %d %s", name, st, body)
		return "", true
	}
	return out.Result.Content[0].Text, out.Result.IsError
}

// wpVerify is a /verify body of a rollout that made no call, with an empty
// ground truth.
const wpVerify = `{"responses_create_params":{"input":[{"role":"user","content":"do it"}]},` +
	`"response":{"id":"resp","created_at":1.0,"model":"m","object":"response","output":[],` +
	`"parallel_tool_calls":false,"tool_choice":"auto","tools":[]},` +
	`"ground_truth":[],"id":7,"category":"workplace_assistant_email","environment_name":"workplace_assistant"}`

// TestEndRacingFirstWrite: POST /close_session, or
// /verify, sent while the rollout's first write (the one that creates its
// world) is in flight, on either door. Whatever the order, once both are
// answered the rollout is over: its cookie and its token answer "Session not
// initialized", the email is nowhere, and no world is left behind (a world
// kept after the end is reachable by the ended rollout and counts toward the
// cap until its idle timeout). Found by this pass: a write that had read the
// seed mark before the end kept its world after it (6 to 14 rounds in 150 on
// 2 cores), and the next call of the ended rollout ran on it.
func TestEndRacingFirstWrite(t *testing.T) {
	t.Parallel()
	for _, end := range []struct{ path, body string }{{"/close_session", ""}, {"/verify", wpVerify}} {
		t.Run(strings.TrimPrefix(end.path, "/"), func(t *testing.T) {
			t.Parallel()
			ts, s := newWorkplaceServer(t, "")
			const rounds = 150
			resurrected, leaked, kept := 0, 0, 0
			for i := range rounds {
				c := seedWP(t, ts.URL)
				var wg sync.WaitGroup
				mcp := i%2 == 1
				wg.Go(func() {
					if mcp {
						c.mcpTool(t, "email_send_email", `{"recipient":"a@b.co","subject":"race","body":"b"}`)
					} else {
						c.post(t, "/email_send_email", nil, `{"recipient":"a@b.co","subject":"race","body":"b"}`)
					}
				})
				wg.Go(func() {
					if st, body, _ := c.post(t, end.path, nil, end.body); st != 200 {
						t.Errorf("%s: %d %s", end.path, st, body)
					}
				})
				wg.Wait()
				st, body, _ := c.post(t, "/email_search_emails", nil, `{"query":"race"}`)
				text, isErr := c.mcpTool(t, "email_search_emails", `{"query":"race"}`)
				if st != 400 || !strings.Contains(body, notSeeded) || !isErr || !strings.Contains(text, notSeeded) {
					resurrected++
					if resurrected <= 3 {
						t.Errorf("round %d (mcp=%v): the ended rollout still answers: HTTP %d %s; MCP isError=%v %s", i, mcp, st, body, isErr, text)
					}
				}
				if n := s.LiveWorlds(); n != kept {
					leaked++
					if leaked <= 3 {
						t.Errorf("round %d (mcp=%v): %d worlds kept after %s, want %d", i, mcp, n, end.path, kept)
					}
					kept = n
				}
			}
			if resurrected+leaked > 0 {
				t.Errorf("%d of %d rounds: ended rollout still reachable; %d rounds left a world", resurrected, rounds, leaked)
			}
		})
	}
}

// TestWorkplaceNoWriteAfter504: workplace_assistant
// keeps its worlds itself, outside session.Update, so the framework's write
// guard does not cover them. With email_delete_email limited to 1 µs (every
// call times out before the tool runs), 50 deletes of a kept world's email
// over both doors are answered 504 and none deletes it: the world is not
// written after its call was answered as failed. Found by this pass: all 50
// deleted the email after their 504.
func TestWorkplaceNoWriteAfter504(t *testing.T) {
	t.Parallel()
	s := newWorkplace(t)
	in, err := server.NewInstance(context.Background(), s, configtest.Over(config.Instance{Name: workplace.Name, ServerType: workplace.Name, Host: "127.0.0.1", ExposeToolsOverMCP: true, SessionSecrets: config.Secrets{replicaSecretA},
		ToolTimeouts: map[string]time.Duration{"email_delete_email": time.Microsecond}}), server.InstanceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(in.Handler())
	t.Cleanup(ts.Close)
	written := 0
	const calls = 50
	for i := range calls {
		c := seedWP(t, ts.URL)
		if st, body, _ := c.post(t, "/email_send_email", nil, `{"recipient":"a@b.co","subject":"keep","body":"b"}`); st != 200 {
			t.Fatalf("send: %d %s", st, body)
		}
		if i%2 == 0 {
			if st, body, _ := c.post(t, "/email_delete_email", nil, `{"email_id":"500"}`); st != 504 {
				t.Fatalf("HTTP delete: %d %s", st, body)
			}
		} else if text, isErr := c.mcpTool(t, "email_delete_email", `{"email_id":"500"}`); !isErr || !strings.Contains(text, "HTTP 504 ") {
			t.Fatalf("MCP delete: %v %s", isErr, text)
		}
		// Let a handler that outlived its 504 finish.
		time.Sleep(2 * time.Millisecond)
		if _, body, _ := c.post(t, "/email_search_emails", nil, `{"query":"keep"}`); !strings.Contains(body, `"email_id":"500"`) {
			written++
		}
	}
	if written > 0 {
		t.Errorf("%d of %d deletes answered 504 deleted the email", written, calls)
	}
}

// TestParallelFirstWritesBothDoors: 20 rollouts, each
// sending 10 emails at once, 5 over HTTP and 5 over MCP, as their first
// writes: every rollout ends with exactly its 10 emails and one world.
func TestParallelFirstWritesBothDoors(t *testing.T) {
	t.Parallel()
	ts, s := newWorkplaceServer(t, "")
	const rollouts, sends = 20, 10
	var wg sync.WaitGroup
	clients := make([]*wpClient, rollouts)
	for r := range rollouts {
		clients[r] = seedWP(t, ts.URL)
	}
	for r, c := range clients {
		for i := range sends {
			wg.Go(func() {
				args := `{"recipient":"a@b.co","subject":"par-` + itoa(r) + `","body":"` + itoa(i) + `"}`
				if i%2 == 0 {
					if st, body, _ := c.post(t, "/email_send_email", nil, args); st != 200 {
						t.Errorf("HTTP send: %d %s", st, body)
					}
				} else if text, isErr := c.mcpTool(t, "email_send_email", args); isErr {
					t.Errorf("MCP send: %s", text)
				}
			})
		}
	}
	wg.Wait()
	lost := 0
	for r, c := range clients {
		_, body, _ := c.post(t, "/email_search_emails", nil, `{"query":"par-`+itoa(r)+`","page_size":50}`)
		if !strings.Contains(body, `"total_emails":`+itoa(sends)+`,`) {
			lost++
			t.Errorf("rollout %d: %.300s", r, body)
		}
	}
	if n := s.LiveWorlds(); n != rollouts || lost > 0 {
		t.Errorf("%d worlds, want %d; %d rollouts lost a send", n, rollouts, lost)
	}
}
