package workplace_test

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/server/servertest"
	workplace "github.com/gymkit/gymkit/servers/workplace_assistant"
)

// dataPath returns a path under ../shared/data/nemo-gym/workplace_assistant
// from the project root, computed from this file's location.
func dataPath(t testing.TB, rel string) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	p := filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "data", "nemo-gym", "workplace_assistant", rel)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("shared data missing: %v", err)
	}
	return p
}

// newWorkplace returns a configured, not yet provisioned server.
func newWorkplace(t testing.TB) *workplace.Workplace {
	s := workplace.New()
	s.DataDir = config.Path(dataPath(t, "csv_data"))
	s.ToolsFile = config.Path(dataPath(t, "tools.json"))
	return s
}

func newServer(t testing.TB) (*servertest.Server, *workplace.Workplace) {
	s := newWorkplace(t)
	return servertest.New(t, s, servertest.Options{ServerType: workplace.Name, Name: workplace.Name}), s
}

func seeded(t *testing.T, ts *servertest.Server) *servertest.Rollout {
	t.Helper()
	ro := ts.Rollout()
	if res := ro.Post("/seed_session", `{}`); res.Status != 200 || string(res.Body) != `{}` {
		t.Fatalf("seed: %d %s", res.Status, res.Body)
	}
	return ro
}

func TestSection9ObservedOutputsHTTP(t *testing.T) {
	t.Parallel()
	ts, _ := newServer(t)
	for _, b := range section9 {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			ro := seeded(t, ts)
			for i, s := range b.steps {
				res := ro.Post("/"+s.tool, s.body)
				got := string(res.Body)
				ok := got == s.want
				if s.prefix {
					ok = strings.HasPrefix(got, s.want)
				}
				if res.Status != 200 || !ok {
					t.Errorf("step %d: POST /%s %s\n got: %d %s\nwant: 200 %s", i+1, s.tool, s.body, res.Status, got, s.want)
				}
			}
		})
	}
}

func TestSection9HTTPErrors(t *testing.T) {
	t.Parallel()
	ts, _ := newServer(t)
	cases := []struct {
		name, path, body string
		seed             bool
		status           int
		want             string
	}{
		{"unseeded session", "/email_search_emails", `{}`, false, 400, `{"detail":"Session not initialized. Please call seed_session first."}`},
		{"list body", "/email_search_emails", `[1,2]`, true, 422, `{"detail":[{"type":"model_attributes_type","loc":["body"],"msg":"Input should be a valid dictionary or object to extract fields from","input":[1,2]}]}`},
		{"string body", "/email_search_emails", `"str"`, true, 422, `{"detail":[{"type":"model_attributes_type","loc":["body"],"msg":"Input should be a valid dictionary or object to extract fields from","input":"str"}]}`},
		{"null body", "/email_search_emails", `null`, true, 422, `{"detail":[{"type":"missing","loc":["body"],"msg":"Field required","input":null}]}`},
		{"invalid JSON", "/email_search_emails", `{bad`, true, 422, `{"detail":[{"type":"json_invalid","loc":["body",1],"msg":"JSON decode error","input":{},"ctx":{"error":"Expecting property name enclosed in double quotes"}}]}`},
		{"two segments", "/a/b", `{}`, true, 404, `{"detail":"Not Found"}`},
		{"validation before the session check", "/email_search_emails", `[1,2]`, false, 422, `{"detail":[{"type":"model_attributes_type","loc":["body"],"msg":"Input should be a valid dictionary or object to extract fields from","input":[1,2]}]}`},
		{"reverify_mode is GET only", "/reverify_mode", `{}`, true, 200, `{"output":"Error executing tool 'reverify_mode': 'reverify_mode'"}`},
		{"repr of a quoted path", "/it's", `{}`, true, 200, `{"output":"Error executing tool 'it's': \"it's\""}`},
		{"percent-decoded path", "/a%20b", `{}`, true, 200, `{"output":"Error executing tool 'a b': 'a b'"}`},
		{"self is bound", "/email_send_email", `{"self":1}`, true, 200, `{"output":"Error executing tool 'email_send_email': EmailTool.send_email() got multiple values for argument 'self'"}`},
		{"first unexpected key named", "/calendar_delete_event", `{"b":1,"a":2,"event_id":"x"}`, true, 200, `{"output":"Error executing tool 'calendar_delete_event': CalendarTool.delete_event() got an unexpected keyword argument 'b'"}`},
		{"seed takes objects only", "/seed_session", `[1,2]`, false, 422, `{"detail":[{"type":"model_attributes_type","loc":["body"],"msg":"Input should be a valid dictionary or object to extract fields from","input":[1,2]}]}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ro := ts.Rollout()
			if c.seed {
				ro = seeded(t, ts)
			}
			res := ro.Post(c.path, c.body)
			if res.Status != c.status || string(res.Body) != c.want {
				t.Errorf("POST %s %s\n got: %d %s\nwant: %d %s", c.path, c.body, res.Status, res.Body, c.status, c.want)
			}
			if n := len(res.SetCookies()); n != 1 {
				t.Errorf("%d Set-Cookie headers, want 1", n)
			}
		})
	}
}

func TestReseedResetsAndSessionsAreIsolated(t *testing.T) {
	t.Parallel()
	ts, _ := newServer(t)
	a, b := seeded(t, ts), seeded(t, ts)
	send := `{"recipient":"a@b.co","subject":"S","body":"B"}`
	if res := a.Post("/email_send_email", send); string(res.Body) != `{"output":"Email sent successfully."}` {
		t.Fatalf("send: %s", res.Body)
	}
	count := func(ro *servertest.Rollout) string {
		return string(ro.Post("/email_search_emails", `{"query":"a@b.co"}`).Body)
	}
	if got := count(b); got != `{"output":"No emails found."}` {
		t.Errorf("other session sees the email: %s", got)
	}
	if got := count(a); !strings.Contains(got, `"total_emails":1`) {
		t.Errorf("own session: %s", got)
	}
	a.Post("/seed_session", `{}`)
	if got := count(a); got != `{"output":"No emails found."}` {
		t.Errorf("re-seed kept the email: %s", got)
	}
}

// exampleRow is one row of example.jsonl.
type exampleRow struct {
	ID                    int             `json:"id"`
	ResponsesCreateParams json.RawMessage `json:"responses_create_params"`
	GroundTruth           []struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"ground_truth"`
	Category        string `json:"category"`
	EnvironmentName string `json:"environment_name"`
}

func exampleRows(t *testing.T) []exampleRow {
	t.Helper()
	f, err := os.Open(dataPath(t, "example.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []exampleRow
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	for sc.Scan() {
		var r exampleRow
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 5 {
		t.Fatalf("%d rows in example.jsonl, want 5", len(rows))
	}
	return rows
}

func readCSV(t *testing.T, rel string) [][]string {
	t.Helper()
	f, err := os.Open(dataPath(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// Spec section 4.1: the name is a case-insensitive regex over the 20
// addresses, in file order.
func TestDirectoryIsARegexSearch(t *testing.T) {
	t.Parallel()
	ts, _ := newServer(t)
	var all []string
	for _, r := range readCSV(t, "csv_data/raw/email_addresses.csv") {
		all = append(all, r[0])
	}
	if len(all) != 20 {
		t.Fatalf("%d addresses", len(all))
	}
	everything, _ := json.Marshal(map[string]any{"output": all})
	ro := seeded(t, ts)
	for body, want := range map[string]string{
		`{"name":" "}`: `{"output":[]}`,
		`{"name":"."}`: string(everything),
		`{"name":""}`:  `{"output":"Name not provided."}`,
		`{"name":0}`:   `{"output":"Error executing tool 'company_directory_find_email_address': 'int' object has no attribute 'lower'"}`,
	} {
		if res := ro.Post("/company_directory_find_email_address", body); string(res.Body) != want {
			t.Errorf("%s: %s, want %s", body, res.Body, want)
		}
	}
}

// The config keys decode strictly (as gymkit serve does), and a relative
// data_dir resolves against the working directory, which go test sets to the
// package folder: the server folder, which the same line in
// configs/workplace_assistant.yaml resolves against too.
func TestConfigKeys(t *testing.T) {
	t.Parallel()
	s := workplace.New()
	ts := servertest.New(t, s, servertest.Options{ServerType: workplace.Name, Name: workplace.Name, Config: strings.Join([]string{
		"data_dir: ../../../shared/data/nemo-gym/workplace_assistant/csv_data",
		"tools_file: " + dataPath(t, "tools.json"),
		"world_max_idle: 30m",
		"max_live_worlds: 3",
		"max_world_bytes: 5000000",
		"keep_world_after_verify: true",
	}, "\n")})
	if s.WorldMaxIdle.String() != "30m0s" || s.MaxLiveWorlds != 3 || s.MaxWorldBytes != 5000000 || !s.KeepWorldAfterVerify {
		t.Errorf("decoded %+v", s)
	}
	ro := seeded(t, ts)
	if res := ro.Post("/company_directory_find_email_address", `{"name":"AISHA"}`); string(res.Body) != `{"output":["aisha.chen@atlas.com"]}` {
		t.Errorf("call: %s", res.Body)
	}
	if d := workplace.New(); d.MaxWorldBytes != 1<<30 || d.MaxLiveWorlds != 0 {
		t.Errorf("defaults: max_world_bytes %d, max_live_worlds %d; want 1 GiB and no count limit", d.MaxWorldBytes, d.MaxLiveWorlds)
	}
	neg := workplace.New()
	neg.DataDir, neg.ToolsFile, neg.MaxWorldBytes = config.Path(dataPath(t, "csv_data")), config.Path(dataPath(t, "tools.json")), -1
	if err := neg.Provision(context.Background()); err == nil || !strings.Contains(err.Error(), "max_world_bytes") {
		t.Errorf("negative max_world_bytes: %v", err)
	}
}

func TestProvisionFailsFast(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	badTools := filepath.Join(dir, "tools.json")
	if err := os.WriteFile(badTools, []byte(`[{"type":"function","name":"email_teleport","parameters":{"type":"object"}}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name             string
		dataDir, tools   string
		wantErrSubstring string
	}{
		{"no data_dir", "", dataPath(t, "tools.json"), "data_dir is required"},
		{"no tools_file", dataPath(t, "csv_data"), "", "tools_file is required"},
		{"missing data", dir, dataPath(t, "tools.json"), "calendar_events.csv"},
		{"unknown tool", dataPath(t, "csv_data"), badTools, `unknown tool "email_teleport"`},
	}
	for _, c := range cases {
		s := workplace.New()
		s.DataDir, s.ToolsFile = config.Path(c.dataDir), config.Path(c.tools)
		err := s.Provision(context.Background())
		if err == nil || !strings.Contains(err.Error(), c.wantErrSubstring) {
			t.Errorf("%s: %v, want an error containing %q", c.name, err, c.wantErrSubstring)
		}
	}
}
