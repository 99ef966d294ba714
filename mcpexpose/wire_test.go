package mcpexpose_test

// Wire details of /mcp (contract d.5, d.6; small-servers 1.4), driven with
// raw JSON-RPC and compared byte for byte with testdata/wire/<case>.txt.
// Regenerate with: go test ./mcpexpose -run TestWire -update

import (
	"flag"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	examplemcpweather "github.com/gymkit/gymkit/servers/example_mcp_weather"

	"github.com/gymkit/gymkit/mcpexpose"
)

var update = flag.Bool("update", false, "rewrite the golden files")

const (
	jsonCT  = "application/json"
	both    = "application/json, text/event-stream"
	pv      = "2025-06-18"
	initMsg = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	listMsg = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
)

// weatherHost serves NeMo's example_mcp_weather with exposure on.
func weatherHost(t *testing.T, mod func(*mcpexpose.Options)) *host {
	t.Helper()
	h, handler, err := compose(t, new(examplemcpweather.Weather), hostOptions{instance: "example_mcp_weather", door: mod})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(handler)
	t.Cleanup(ts.Close)
	h.t, h.URL = t, ts.URL
	return h
}

func TestWire(t *testing.T) {
	t.Parallel()
	h := weatherHost(t, func(o *mcpexpose.Options) {
		o.Config.MaxBodyBytes = 4096
		o.Config.MCPAllowedHosts = []string{"gym-proxy.internal", "other.example:8443"}
	})
	ro := h.seed(`{"verifier_metadata":{"expected_city":"Paris"}}`)
	tok := mcpexpose.TokenHeader
	call := func(args string) string {
		return `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_weather"` + args + `}}`
	}
	cases := []struct {
		name, method, body string
		header             []string
	}{
		{"initialize", "POST", initMsg, []string{"Accept", both}},
		{"initialized_notification_202", "POST", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, []string{"Accept", both, "Mcp-Protocol-Version", pv}},
		{"ping", "POST", `{"jsonrpc":"2.0","id":"p","method":"ping"}`, []string{"Accept", both, "Mcp-Protocol-Version", pv}},
		{"tools_list", "POST", listMsg, []string{"Accept", both, "Mcp-Protocol-Version", pv}},
		{"tools_call", "POST", call(`,"arguments":{"city":"Paris"}`), []string{"Accept", both, "Mcp-Protocol-Version", pv, tok, ro.token}},
		{"tools_call_unicode", "POST", call(`,"arguments":{"city":"<São Paulo> & \"Zürich\""}`), []string{"Accept", both, tok, ro.token}},
		{"tools_call_missing_city_422", "POST", call(`,"arguments":{}`), []string{"Accept", both, tok, ro.token}},
		{"tools_call_no_arguments_422", "POST", call(``), []string{"Accept", both, tok, ro.token}},
		{"tools_call_null_arguments_422", "POST", call(`,"arguments":null`), []string{"Accept", both, tok, ro.token}},
		{"tools_call_string_arguments_invalid_params", "POST", call(`,"arguments":"{\"city\":\"Paris\"}"`), []string{"Accept", both, tok, ro.token}},
		{"tools_call_array_arguments_invalid_params", "POST", call(`,"arguments":["Paris"]`), []string{"Accept", both, tok, ro.token}},
		{"tools_call_no_name_invalid_params", "POST", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"arguments":{"city":"Paris"}}}`, []string{"Accept", both, tok, ro.token}},
		{"tools_call_city_number_422", "POST", call(`,"arguments":{"city":5}`), []string{"Accept", both, tok, ro.token}},
		{"tools_call_name_number_invalid_params", "POST", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":5,"arguments":{"city":"Paris"}}}`, []string{"Accept", both, tok, ro.token}},
		{"tools_call_city_infinite_422", "POST", call(`,"arguments":{"city":1e400}`), []string{"Accept", both, tok, ro.token}},
		{"logging_set_level", "POST", `{"jsonrpc":"2.0","id":5,"method":"logging/setLevel","params":{"level":"warning"}}`, []string{"Accept", both, "Mcp-Protocol-Version", pv}},
		{"logging_set_level_bogus_invalid_params", "POST", `{"jsonrpc":"2.0","id":5,"method":"logging/setLevel","params":{"level":"bogus"}}`, []string{"Accept", both, "Mcp-Protocol-Version", pv}},
		{"tools_call_tokenless", "POST", call(`,"arguments":{"city":"Paris"}`), []string{"Accept", both}},
		{"tools_call_unknown", "POST", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_time","arguments":{}}}`, []string{"Accept", both}},
		{"accept_json_only", "POST", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []string{"Accept", jsonCT}},
		{"accept_wildcard", "POST", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []string{"Accept", "*/*"}},
		{"accept_sse_only_406", "POST", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []string{"Accept", "text/event-stream"}},
		{"accept_missing_406", "POST", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, nil},
		{"content_type_text_400", "POST", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []string{"Accept", both, "Content-Type", "text/plain"}},
		{"get_405", "GET", ``, []string{"Accept", "text/event-stream"}},
		{"delete_405", "DELETE", ``, []string{"Accept", both}},
		{"put_405", "PUT", `{}`, []string{"Accept", both}},
		{"parse_error_400", "POST", `{"jsonrpc":`, []string{"Accept", both}},
		{"not_jsonrpc_400", "POST", `{"hello":"world"}`, []string{"Accept", both}},
		{"unknown_method", "POST", `{"jsonrpc":"2.0","id":9,"method":"bogus/method"}`, []string{"Accept", both, "Mcp-Protocol-Version", pv}},
		{"unknown_notification_202", "POST", `{"jsonrpc":"2.0","method":"notifications/vendor/custom","params":{"x":1}}`, []string{"Accept", both, "Mcp-Protocol-Version", pv}},
		{"request_without_id_202", "POST", `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"get_weather","arguments":{"city":"Paris"}}}`, []string{"Accept", both, tok, ro.token}},
		{"notification_with_id", "POST", `{"jsonrpc":"2.0","id":4,"method":"notifications/initialized"}`, []string{"Accept", both}},
		{"tools_call_no_params", "POST", `{"jsonrpc":"2.0","id":3,"method":"tools/call"}`, []string{"Accept", both, tok, ro.token}},
		{"tools_call_null_params", "POST", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":null}`, []string{"Accept", both, tok, ro.token}},
		{"tools_call_params_array_400", "POST", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":[]}`, []string{"Accept", both, tok, ro.token}},
		{"tools_list_null_params", "POST", `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":null}`, []string{"Accept", both}},
		{"batch_400", "POST", `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`, []string{"Accept", both}},
		{"id_int64_max", "POST", `{"jsonrpc":"2.0","id":9223372036854775807,"method":"ping"}`, []string{"Accept", both}},
		{"id_big_tools_call", "POST", `{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"tools/call","params":{"name":"get_weather","arguments":{"city":"Paris"}}}`, []string{"Accept", both, tok, ro.token}},
		{"id_fraction_202", "POST", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, []string{"Accept", both}},
		{"subscriptions_listen", "POST", `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true}}}`, []string{"Accept", jsonCT}},
		{"meta_protocol_version", "POST", call(`,"arguments":{"city":"Paris"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","progressToken":1}`), []string{"Accept", both, "Mcp-Protocol-Version", pv, tok, ro.token}},
		{"content_type_list", "POST", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []string{"Accept", both, "Content-Type", "application/json, text/plain"}},
		{"content_type_bad_parameter", "POST", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []string{"Accept", both, "Content-Type", "application/json; charset"}},
		{"content_type_jsonx_415", "POST", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []string{"Accept", both, "Content-Type", "application/jsonx"}},
		{"content_type_after_semicolon_400", "POST", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []string{"Accept", both, "Content-Type", "text/plain; application/json"}},
		{"protocol_version_400", "POST", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []string{"Accept", both, "Mcp-Protocol-Version", "1999-01-01"}},
		{"protocol_version_parse_error_400", "POST", `{"jsonrpc":`, []string{"Accept", both, "Mcp-Protocol-Version", "1999-01-01"}},
		{"protocol_version_not_jsonrpc_400", "POST", `{"hello":"world"}`, []string{"Accept", both, "Mcp-Protocol-Version", "1999-01-01"}},
		{"protocol_version_initialize", "POST", initMsg, []string{"Accept", both, "Mcp-Protocol-Version", "1999-01-01"}},
		{"protocol_version_2026_400", "POST", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []string{"Accept", both, "Mcp-Protocol-Version", "2026-07-28"}},
		{"body_too_large_413", "POST", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("x", 5000) + `"}}`, []string{"Accept", both}},
		{"host_rebinding_403", "POST", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []string{"Accept", both, "Host", "evil.example.com", "Origin", "http://evil.example.com"}},
		{"origin_rebinding_403", "POST", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []string{"Accept", both, "Origin", "http://evil.example.com"}},
		{"host_loopback_name", "POST", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []string{"Accept", both, "Host", "localhost:1234", "Origin", "http://localhost:1234"}},
		{"host_allowed_proxy", "POST", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []string{"Accept", both, "Host", "gym-proxy.internal:8080"}},
		{"host_allowed_port", "POST", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []string{"Accept", both, "Host", "other.example:8443"}},
		{"host_wrong_port_403", "POST", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []string{"Accept", both, "Host", "other.example:9000"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			hdr := append([]string{"Content-Type", jsonCT}, tc.header...)
			r := h.do(tc.method, "/mcp", tc.body, hdr...)
			got := fmt.Sprintf("%d\nContent-Type: %s\n", r.Status, r.Header.Get("Content-Type"))
			if a := r.Header.Get("Allow"); a != "" {
				got += "Allow: " + a + "\n"
			}
			got += "\n" + string(r.Body) + "\n"
			if c := r.Header.Values("Set-Cookie"); len(c) != 1 {
				t.Errorf("Set-Cookie = %q, want one session cookie on every /mcp answer", c)
			}
			golden(t, filepath.Join("testdata", "wire", tc.name+".txt"), got)
		})
	}
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs:\n got: %s\nwant: %s", path, got, want)
	}
}
