package mcpexpose_test

// NeMo's example_mcp_weather over both doors (contract d.11, "related
// tests": resources_servers/example_mcp_weather/tests/test_app.py).

import (
	"encoding/json"
	"strings"
	"testing"
)

// weatherVerify is a verify body whose trajectory called name and answered
// with the weather sentence for city.
func weatherVerify(name, city string) string {
	return `{"responses_create_params":{"input":"What is the weather in ` + city + `?"},"verifier_metadata":{"expected_city":"` + city + `"},` +
		`"response":{"id":"r","created_at":0.0,"model":"m","object":"response","parallel_tool_calls":false,"tool_choice":"auto","tools":[],"output":[` +
		`{"type":"function_call","name":"` + name + `","arguments":"{\"city\":\"` + city + `\"}","call_id":"c1"},` +
		`{"type":"function_call_output","call_id":"c1","output":"{}"},` +
		`{"id":"msg_1","type":"message","role":"assistant","status":"completed","content":[{"type":"output_text","text":"The weather in ` + city + ` is sunny and 72 F.","annotations":[]}]}]}}`
}

func reward(t *testing.T, r reply) float64 {
	t.Helper()
	var v struct {
		Reward   float64 `json:"reward"`
		Response struct {
			Output []struct{ Name string }
		}
	}
	if r.Status != 200 {
		t.Fatalf("verify: %d %s", r.Status, r.Body)
	}
	if err := json.Unmarshal(r.Body, &v); err != nil {
		t.Fatal(err)
	}
	return v.Reward
}

func TestWeatherSeedMetadataThenMCPCallThenVerifyRewards(t *testing.T) {
	t.Parallel()
	h := weatherHost(t, nil)
	ro := h.seed(`{"verifier_metadata":{"expected_city":"Paris"}}`)
	meta, _ := ro.seed["mcp"].(map[string]any)
	if meta["server_name"] != "example_mcp_weather" || meta["url_path"] != "/mcp" || meta["transport"] != "http" {
		t.Errorf("seed mcp = %v", meta)
	}
	res := sdkCall(t, h.client(ro.token), "get_weather", map[string]any{"city": "Paris"})
	if res.IsError || sdkText(res) != `{"weather":"The weather in Paris is sunny and 72 F."}` {
		t.Fatalf("get_weather: %v %q", res.IsError, sdkText(res))
	}
	r := h.post("/verify", weatherVerify("mcp__example_mcp_weather__get_weather", "Paris"), ro.cookie)
	if got := reward(t, r); got != 1.0 {
		t.Errorf("reward = %v, want 1.0: %s", got, r.Body)
	}
	if !strings.Contains(string(r.Body), `"name":"mcp__example_mcp_weather__get_weather"`) {
		t.Errorf("verify does not echo the emitted name: %s", r.Body)
	}
}

func TestWeatherCallFromAnotherSessionGivesRewardZero(t *testing.T) {
	t.Parallel()
	h := weatherHost(t, nil)
	a, b := h.seed(`{}`), h.seed(`{}`)
	sdkCall(t, h.client(b.token), "get_weather", map[string]any{"city": "Paris"})
	if got := reward(t, h.post("/verify", weatherVerify("mcp__example_mcp_weather__get_weather", "Paris"), a.cookie)); got != 0 {
		t.Errorf("reward = %v, want 0 (the call was in another session)", got)
	}
}

func TestWeatherHTTPRouteCookieVerifyRewards(t *testing.T) {
	t.Parallel()
	h := weatherHost(t, nil)
	ro := h.seed(`{}`)
	h.post("/get_weather", `{"city":"PARIS"}`, ro.cookie)
	if got := reward(t, h.post("/verify", weatherVerify("get_weather", "Paris"), ro.cookie)); got != 1.0 {
		t.Errorf("reward = %v, want 1.0", got)
	}
}

func TestWeatherTokenlessToolsCallIsError(t *testing.T) {
	t.Parallel()
	h := weatherHost(t, nil)
	res := sdkCall(t, h.client(""), "get_weather", map[string]any{"city": "Paris"})
	if !res.IsError || sdkText(res) != "Missing X-NeMo-Gym-Session-Token for Gym MCP tool call." {
		t.Errorf("%v %q", res.IsError, sdkText(res))
	}
}
