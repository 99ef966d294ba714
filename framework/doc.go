// Package framework is gymkit's public core: write a resources server (the
// HTTP server an RL agent calls during a rollout) as typed Go functions, and
// gymkit serves each tool both as a plain JSON route and, when the instance's
// YAML says expose_tools_over_mcp: true, as an MCP tool, reaching the same
// handler, the same rollout session and the same errors, wire-compatible with
// NVIDIA NeMo Gym's Python agents.
//
//	package weather
//
//	type Weather struct{ framework.Base }
//
//	type GetWeatherRequest struct {
//		City string `json:"city" required:"true"`
//	}
//
//	type GetWeatherResponse struct {
//		Weather string `json:"weather"`
//	}
//
//	type VerifyResponse struct {
//		framework.VerifyResponse
//	}
//
//	func (s *Weather) Routes(r *framework.Router) {
//		framework.Post(r, "/get_weather", s.getWeather, framework.Description("Get the weather for a city."))
//		framework.Verify(r, s.verify)
//	}
//
//	func (s *Weather) getWeather(ctx context.Context, req GetWeatherRequest) (GetWeatherResponse, error) {
//		return GetWeatherResponse{Weather: "The weather in " + req.City + " is sunny."}, nil
//	}
//
//	func (s *Weather) verify(ctx context.Context, req framework.VerifyRequest) (VerifyResponse, error) {
//		return VerifyResponse{framework.VerifyResponse{Reward: 1}}, nil
//	}
//
//	func init() { framework.Register("weather", func() framework.Server { return new(Weather) }) }
//
// # Routes
//
// Every server has POST /seed_session (default: any object, answers {}),
// POST /verify (required, [Verify]), POST /aggregate_metrics (NeMo's
// statistics, with the [MetricsComputer] and [KeyMetricsProvider] hooks),
// POST /close_session (gymkit's: frees one rollout, see [SessionCloser];
// close_session: false turns it off),
// GET / ({"status":"ok"}) and GET /reverify_mode. Tools are [Post] routes, or
// one [Dispatch] catch-all; the route names verify, seed_session,
// aggregate_metrics, close_session and mcp are reserved.
// Requests under /ng-rollout/<id>/ are served as if the prefix were absent.
//
// # Decoding and errors
//
// Bodies are decoded the way FastAPI and pydantic v2 (lax mode) decode them:
// "3" and 3.0 are ints, and a failure is a 422 whose body lists pydantic's
// error items. A handler error chooses the status ([Errorf], [StatusOf]);
// any other error or a panic is a 500 whose body is a JSON string of the
// error text. Bodies are written the Python way ([MarshalJSON]).
//
// # Sessions
//
// Rollout state belongs to the session package (session.ID, session.Get,
// session.Update); the host puts the session in every request's context.
package framework
