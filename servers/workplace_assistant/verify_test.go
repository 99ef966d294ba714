package workplace_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/server/servertest"
)

// call is one function call: a tool name and its JSON arguments.
type call struct{ name, args string }

func c(name, args string) call { return call{name, args} }

// verifyBody builds a /verify body whose response holds pred as
// function_call items and whose ground truth is gt ([]call or any other
// JSON value).
func verifyBody(pred []call, gt any) string {
	type item struct {
		Type      string `json:"type"`
		ID        string `json:"id"`
		CallID    string `json:"call_id"`
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
		Status    string `json:"status"`
	}
	output := []any{}
	for i, p := range pred {
		id := string(rune('a' + i))
		output = append(output, item{"function_call", "fc_" + id, "call_" + id, p.name, p.args, "completed"})
	}
	output = append(output, json.RawMessage(`{"type":"message","id":"msg","role":"assistant","status":"completed","content":[{"type":"output_text","text":"Done.","annotations":[]}]}`))
	var truth any = gt
	if calls, ok := gt.([]call); ok {
		type action struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		}
		list := []action{}
		for _, g := range calls {
			list = append(list, action{g.name, g.args})
		}
		truth = list
	}
	out, _ := json.Marshal(output)
	tr, _ := json.Marshal(truth)
	return `{"responses_create_params":{"input":[{"role":"user","content":"do it"}]},` +
		`"response":{"id":"resp","created_at":1.0,"model":"m","object":"response","output":` + string(out) +
		`,"parallel_tool_calls":false,"tool_choice":"auto","tools":[]},` +
		`"ground_truth":` + string(tr) + `,"id":7,"category":"workplace_assistant_email","environment_name":"workplace_assistant"}`
}

func reward(t *testing.T, ro *servertest.Rollout, body string) float64 {
	t.Helper()
	res := ro.Post("/verify", body)
	if res.Status != 200 {
		t.Fatalf("verify: %d %s", res.Status, res.Body)
	}
	var v struct {
		Reward *float64 `json:"reward"`
	}
	if err := json.Unmarshal(res.Body, &v); err != nil || v.Reward == nil {
		t.Fatalf("verify body %s: %v", res.Body, err)
	}
	return *v.Reward
}

const (
	sendA   = `{"recipient":"a@b.co","subject":"s","body":"b"}`
	del57   = `{"email_id":"00000057"}`
	plotA   = `{"time_min":"2023-11-01","time_max":"2023-11-30","value_to_plot":"total_visits","plot_type":"bar"}`
	plotB   = `{"time_min":"2023-11-01","time_max":"2023-11-30","value_to_plot":"user_engaged","plot_type":"line"}`
	eventA  = `{"event_name":"Demo","participant_email":"a@b.co","event_start":"2023-12-01 10:00:00","duration":"60"}`
	taskA   = `{"task_name":"T","assigned_to_email":"leila.azizi@atlas.com","list_name":"Backlog","due_date":"2023-12-01","board":"Design"}`
	addLead = `{"customer_name":"Dakota Thomas","assigned_to_email":"nadia.moreau@atlas.com","status":"Lead"}`
)

// TestVerifyRewards is spec section 9 item 37.
func TestVerifyRewards(t *testing.T) {
	t.Parallel()
	ts, _ := newServer(t)
	cases := []struct {
		name string
		pred []call
		gt   any
		want float64
	}{
		{"identical send", []call{c("email_send_email", sendA)}, []call{c("email_send_email", sendA)}, 1},
		{"send then delete vs delete then send",
			[]call{c("email_send_email", sendA), c("email_delete_email", del57)},
			[]call{c("email_delete_email", del57), c("email_send_email", sendA)}, 0},
		{"recipient, subject and body case",
			[]call{c("email_send_email", `{"recipient":"A@B.CO","subject":"s","body":"BODY"}`)},
			[]call{c("email_send_email", `{"recipient":"a@b.co","subject":"S","body":"body"}`)}, 1},
		{"status lead vs Lead",
			[]call{c("customer_relationship_manager_add_customer", `{"customer_name":"Dakota Thomas","assigned_to_email":"nadia.moreau@atlas.com","status":"lead"}`)},
			[]call{c("customer_relationship_manager_add_customer", addLead)}, 0},
		{"customer_name case",
			[]call{c("customer_relationship_manager_add_customer", `{"customer_name":"DAKOTA thomas","assigned_to_email":"nadia.moreau@atlas.com","status":"Lead"}`)},
			[]call{c("customer_relationship_manager_add_customer", addLead)}, 1},
		{"notes null vs omitted",
			[]call{c("customer_relationship_manager_add_customer", `{"customer_name":"Dakota Thomas","assigned_to_email":"nadia.moreau@atlas.com","status":"Lead","notes":null}`)},
			[]call{c("customer_relationship_manager_add_customer", addLead)}, 0},
		{"customer_email null vs omitted",
			[]call{c("customer_relationship_manager_add_customer", `{"customer_name":"Dakota Thomas","assigned_to_email":"nadia.moreau@atlas.com","status":"Lead","customer_email":null}`)},
			[]call{c("customer_relationship_manager_add_customer", addLead)}, 1},
		{"duration 60 vs \"60\"",
			[]call{c("calendar_create_event", `{"event_name":"Demo","participant_email":"a@b.co","event_start":"2023-12-01 10:00:00","duration":60}`)},
			[]call{c("calendar_create_event", eventA)}, 0},
		{"event_start forms differ",
			[]call{c("calendar_create_event", `{"event_name":"Demo","participant_email":"a@b.co","event_start":"2023-12-01T10:00:00","duration":"60"}`)},
			[]call{c("calendar_create_event", eventA)}, 0},
		{"two plots swapped",
			[]call{c("analytics_create_plot", plotA), c("analytics_create_plot", plotB)},
			[]call{c("analytics_create_plot", plotB), c("analytics_create_plot", plotA)}, 0},
		{"same plot", []call{c("analytics_create_plot", plotA)}, []call{c("analytics_create_plot", plotA)}, 1},
		{"CRM updates to different ids swapped",
			[]call{c("customer_relationship_manager_update_customer", `{"customer_id":"00000095","field":"status","new_value":"Lost"}`),
				c("customer_relationship_manager_update_customer", `{"customer_id":"00000080","field":"status","new_value":"Won"}`)},
			[]call{c("customer_relationship_manager_update_customer", `{"customer_id":"00000080","field":"status","new_value":"Won"}`),
				c("customer_relationship_manager_update_customer", `{"customer_id":"00000095","field":"status","new_value":"Lost"}`)}, 1},
		{"calendar create+delete vs the reverse",
			[]call{c("calendar_create_event", eventA), c("calendar_delete_event", `{"event_id":"00000013"}`)},
			[]call{c("calendar_delete_event", `{"event_id":"00000013"}`), c("calendar_create_event", eventA)}, 1},
		{"task create+delete vs the reverse",
			[]call{c("project_management_create_task", taskA), c("project_management_delete_task", `{"task_id":"00000149"}`)},
			[]call{c("project_management_delete_task", `{"task_id":"00000149"}`), c("project_management_create_task", taskA)}, 0},
		{"duplicate send vs a single send",
			[]call{c("email_send_email", sendA), c("email_send_email", sendA)}, []call{c("email_send_email", sendA)}, 0},
		{"reply vs the equivalent RE: send",
			[]call{c("email_reply_email", `{"email_id":"00000057","body":"Thanks"}`)},
			[]call{c("email_send_email", `{"recipient":"carlos.rodriguez@atlas.com","subject":"RE: Task Update on Develop prototype for report generation","body":"Thanks"}`)}, 1},
		{"read-only calls vs []",
			[]call{c("email_search_emails", `{"query":"kofi"}`), c("calendar_search_events", `{"query":"sync"}`),
				c("analytics_get_average_session_duration", `{}`), c("company_directory_find_email_address", `{"name":"a"}`)},
			[]call{}, 1},
		{"ground_truth a string, no writes", []call{c("email_search_emails", `{}`)}, "anything", 1},
		{"ground_truth a string, a send", []call{c("email_send_email", sendA)}, "anything", 0},
		{"invalid JSON, unknown tool, unexpected kwarg vs []",
			[]call{c("email_send_email", `{bad`), c("no_such_tool", sendA), c("email_send_email", `{"recipient":"a@b.co","subject":"s","body":"b","cc":"x"}`),
				c("email_send_email", `[1]`)},
			[]call{}, 1},
		{"updating twice to the final value",
			[]call{c("calendar_update_event", `{"event_id":"00000013","field":"event_name","new_value":"x"}`),
				c("calendar_update_event", `{"event_id":"00000013","field":"event_name","new_value":"Y"}`)},
			[]call{c("calendar_update_event", `{"event_id":"00000013","field":"event_name","new_value":"y"}`)}, 1},
		{"MCP-style names are not normalized with exposure off",
			[]call{c("mcp__workplace_assistant__email_send_email", sendA)}, []call{c("email_send_email", sendA)}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ro := seeded(t, ts)
			if got := reward(t, ro, verifyBody(tc.pred, tc.gt)); got != tc.want {
				t.Errorf("reward = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestVerifyEchoesAndDropsTaskFields(t *testing.T) {
	t.Parallel()
	ts, _ := newServer(t)
	ro := seeded(t, ts)
	res := ro.Post("/verify", verifyBody([]call{c("email_send_email", sendA)}, []call{c("email_send_email", sendA)}))
	body := string(res.Body)
	// The echo's bytes are the verify model's (pydantic fills in defaults):
	// check its keys and the echoed input, not the bytes.
	if res.Status != 200 || !strings.HasPrefix(body, `{"responses_create_params":{`) || !strings.HasSuffix(body, `,"reward":1.0}`) {
		t.Fatalf("verify: %d %s", res.Status, body)
	}
	var echo struct {
		RCP struct {
			Input []struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"input"`
		} `json:"responses_create_params"`
		Response map[string]any `json:"response"`
	}
	if err := json.Unmarshal(res.Body, &echo); err != nil || len(echo.RCP.Input) != 1 || echo.RCP.Input[0].Content != "do it" ||
		echo.RCP.Input[0].Role != "user" || echo.Response["id"] != "resp" {
		t.Errorf("verify echo (%v): %s", err, body)
	}
	for _, k := range []string{`"ground_truth"`, `"category"`, `"environment_name"`, `"id":7`} {
		if strings.Contains(body, k) {
			t.Errorf("verify echoes %s: %s", k, body)
		}
	}
}

func TestVerifyValidatesGroundTruth(t *testing.T) {
	t.Parallel()
	ts, _ := newServer(t)
	cases := []struct {
		name string
		gt   any
		want string
	}{
		{"a number", 5, `{"detail":[{"type":"list_type","loc":["body","ground_truth","list[dict[str,str]]"],"msg":"Input should be a valid list","input":5},{"type":"string_type","loc":["body","ground_truth","str"],"msg":"Input should be a valid string","input":5}]}`},
		{"a non-string argument", json.RawMessage(`[{"name":"x","arguments":1}]`),
			`{"detail":[{"type":"string_type","loc":["body","ground_truth","list[dict[str,str]]",0,"arguments"],"msg":"Input should be a valid string","input":1},{"type":"string_type","loc":["body","ground_truth","str"],"msg":"Input should be a valid string","input":[{"name":"x","arguments":1}]}]}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ro := seeded(t, ts)
			res := ro.Post("/verify", verifyBody(nil, tc.gt))
			if res.Status != 422 || string(res.Body) != tc.want {
				t.Errorf("got %d %s\nwant 422 %s", res.Status, res.Body, tc.want)
			}
		})
	}
	t.Run("missing id", func(t *testing.T) {
		t.Parallel()
		ro := seeded(t, ts)
		var m map[string]any
		_ = json.Unmarshal([]byte(verifyBody(nil, []call{})), &m)
		delete(m, "id")
		res := ro.Post("/verify", m)
		if res.Status != 422 || !strings.Contains(string(res.Body), `"type":"missing","loc":["body","id"]`) {
			t.Errorf("got %d %s", res.Status, res.Body)
		}
	})
}

// TestGroundTruthRowsScore replays the ground truth of every example.jsonl
// row as the model's calls (1.0), then with one argument changed (0.0).
func TestGroundTruthRowsScore(t *testing.T) {
	t.Parallel()
	ts, _ := newServer(t)
	for _, row := range exampleRows(t) {
		t.Run(row.Category+"/"+strings.Repeat("#", row.ID+1), func(t *testing.T) {
			t.Parallel()
			var gt, pred, changed []call
			for _, g := range row.GroundTruth {
				gt = append(gt, c(g.Name, g.Arguments))
			}
			pred = append(pred, gt...)
			changed = append(changed, gt...)
			changed[0].args = changeOneArgument(t, changed[0].args)

			body := func(p []call) string {
				var m map[string]any
				_ = json.Unmarshal([]byte(verifyBody(p, gt)), &m)
				m["responses_create_params"] = json.RawMessage(row.ResponsesCreateParams)
				m["id"], m["category"], m["environment_name"] = row.ID, row.Category, row.EnvironmentName
				b, _ := json.Marshal(m)
				return string(b)
			}
			ro := seeded(t, ts)
			if got := reward(t, ro, body(pred)); got != 1.0 {
				t.Errorf("ground truth replayed: reward %v, want 1.0", got)
			}
			if got := reward(t, ro, body(changed)); got != 0.0 {
				t.Errorf("one argument changed (%s): reward %v, want 0.0", changed[0].args, got)
			}
		})
	}
}

// changeOneArgument changes the last string argument of a call: an id gets
// another number, any other value another text.
func changeOneArgument(t *testing.T, args string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(args), &m); err != nil {
		t.Fatal(err)
	}
	key := ""
	for k := range m {
		if strings.HasSuffix(k, "_id") {
			key = k
		}
	}
	if key != "" {
		m[key] = "00000001"
	} else {
		for k, v := range m {
			if s, ok := v.(string); ok {
				m[k] = s + " (changed)"
				break
			}
		}
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// Spec section 7's extreme case: a compared column left with only
// non-string values has no .str accessor; pandas raises and verify answers
// 500.
func TestVerifyAnswers500WhenAColumnHasNoStrings(t *testing.T) {
	t.Parallel()
	ts, _ := newServer(t)
	recs := readCSV(t, "csv_data/processed/calendar_events.csv")
	pred := []call{c("calendar_create_event", `{"event_name":"E","participant_email":"a@b.c","event_start":"2023-12-01 10:00:00","duration":30}`)}
	for _, r := range recs[1:] {
		pred = append(pred, c("calendar_delete_event", `{"event_id":"`+r[0]+`"}`))
	}
	ro := seeded(t, ts)
	res := ro.Post("/verify", verifyBody(pred, []call{}))
	if want := `"AttributeError('Can only use .str accessor with string values!')"`; res.Status != 500 || string(res.Body) != want {
		t.Errorf("got %d %s, want 500 %s", res.Status, res.Body, want)
	}
}
