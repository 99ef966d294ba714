package framework_test

import (
	"context"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/framework/host"
)

// A tool may not take a reserved route name; Build says what serves that
// route instead (a new-user pass found close_session pointing at SeedSession).
func TestReservedToolNamesSayWhatToUse(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"close_session":     "framework.SessionCloser",
		"seed_session":      "implement SeedSession",
		"verify":            "implement Verify",
		"aggregate_metrics": "framework.MetricsComputer",
		"mcp":               "MCP door",
	} {
		_, err := host.Build(context.Background(), &reservedServer{name: name}, host.Options{Name: "r"})
		if err == nil || !strings.Contains(err.Error(), `"`+name+`" is reserved`) || !strings.Contains(err.Error(), want) {
			t.Errorf("tool %q: Build error %v; want it reserved, naming %q", name, err, want)
		}
	}
}

type reservedServer struct {
	framework.Base
	name string
}

type reservedVerifyRequest struct {
	framework.VerifyRequest
}

type reservedVerifyResponse struct {
	framework.VerifyResponse
}

func (s *reservedServer) Routes(r *framework.Router) {
	framework.Post(r, "/"+s.name, func(context.Context, framework.NoBody) (map[string]int, error) { return nil, nil })
	framework.Verify(r, func(context.Context, reservedVerifyRequest) (reservedVerifyResponse, error) {
		return reservedVerifyResponse{}, nil
	})
}
