// Package all imports every environment shipped with gymkit, so that their
// server types are registered (framework.Register) in the gymkit binary.
package all

import (
	_ "github.com/gymkit/gymkit/servers/example_mcp_weather"
	_ "github.com/gymkit/gymkit/servers/example_session_state_mgmt"
	_ "github.com/gymkit/gymkit/servers/math_advanced_calculations"
	_ "github.com/gymkit/gymkit/servers/workplace_assistant"
)
