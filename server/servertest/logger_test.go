package servertest_test

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/internal/testkit/syncbuf"
	"github.com/gymkit/gymkit/server/servertest"
	examplemcpweather "github.com/gymkit/gymkit/servers/example_mcp_weather"
)

// TestOptionsLogger: the instance logs to Options.Logger (an MCP tool
// call's line), not to slog's default logger.
func TestOptionsLogger(t *testing.T) {
	t.Parallel()
	var buf syncbuf.Buffer
	ts := servertest.New(t, new(examplemcpweather.Weather), servertest.Options{Name: "example_mcp_weather", MCP: true,
		Logger: slog.New(slog.NewTextHandler(&buf, nil))})
	ro := ts.Rollout()
	ro.Post("/seed_session", `{}`)
	ro.MCP().CallTool("get_weather", map[string]any{"city": "Oslo"})
	logs := buf.String()
	for _, want := range []string{"tool=get_weather door=mcp", "instance=example_mcp_weather"} {
		if !strings.Contains(logs, want) {
			t.Errorf("the logger did not get %q:\n%s", want, logs)
		}
	}
}
