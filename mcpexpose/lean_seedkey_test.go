package mcpexpose_test

import (
	"strings"
	"testing"

	"github.com/gymkit/gymkit/framework"
)

// TestLeanParitySeedAllowList: seed bodies whose allowed_tools is
// repeated, escaped, of the wrong type, or beside a key "mcp" of the
// row's own, give each door the same allow-list (the last member wins, as
// in Python's dict) and the same answers to tools/list and tools/call.
func TestLeanParitySeedAllowList(t *testing.T) {
	t.Parallel()
	p := newParityPair(t, func() framework.Server { return &Store{extra: parityRoutes} }, "store", nil)
	for i, tc := range []struct{ seed, only string }{ // only: the one tool allowed ("" any or none)
		{`{"allowed_tools":["append"],"allowed_tools":["raw_step"]}`, "raw_step"},
		{`{"allowed_tools":["append"],"allowed_tool\u0073":["raw_step"]}`, "raw_step"},
		{`{"allowed_tool\u0073":["raw_step"],"allowed_tools":["append"]}`, "append"},
		{`{"allowed_tools":"append"}`, ""},
		{`{"allowed_tools":null}`, ""},
		{`{"allowed_tools":[5,"append"]}`, ""},
		{`{"mcp":{"headers":{"X":"y"}},"allowed_tools":["append"]}`, "append"},
		{`{"a":` + strings.Repeat("[", 200) + strings.Repeat("]", 200) + `,"allowed_tools":["raw_step"]}`, "raw_step"},
		{`["allowed_tools"]`, ""},
	} {
		seed := tc.seed
		ph := string(rune('A' + i))
		p.seedBoth(t, ph, seed)
		for _, row := range []parityRow{
			{name: seed + ": tools/list", body: listMsg, header: []string{tok, "{{" + ph + "}}"}},
			callRow(seed+": append", "3", `{"name":"append","arguments":{"value":"x"}}`, false, tok, "{{"+ph+"}}"),
			callRow(seed+": raw_step", "3", `{"name":"raw_step","arguments":{}}`, false, tok, "{{"+ph+"}}"),
		} {
			lean, sdk, _ := p.both(t, row)
			if tc.only != "" && strings.HasSuffix(row.name, ": tools/list") &&
				(strings.Count(lean.body, `"name":`) != 1 || !strings.Contains(lean.body, `"name":"`+tc.only+`"`)) {
				t.Errorf("%s: want only %s listed, got %.300s", row.name, tc.only, lean.body)
			}
			if lean != sdk {
				t.Errorf("%s: the lean door answered\n%.500s\nthe go-sdk door\n%.500s", row.name, lean, sdk)
			}
		}
	}
}
