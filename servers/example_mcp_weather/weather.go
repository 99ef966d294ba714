// Package examplemcpweather is NeMo Gym's example_mcp_weather resources
// server in gymkit: one typed tool, get_weather, recorded per rollout session,
// and a verifier that rewards a rollout which called the tool for the expected
// city (in its own session) and quoted the weather sentence in its final
// answer. Behaviour: ../shared/spec/small-servers.md section 1.
//
//	POST /seed_session {"verifier_metadata":{"expected_city":"Paris"}}  -> {} (plus "mcp" with exposure on)
//	POST /get_weather  {"city":"Paris"}  -> {"weather":"The weather in Paris is sunny and 72 F."}
//	POST /verify       {responses_create_params, response, verifier_metadata} -> {..., "reward":1.0, ...}
package examplemcpweather

import (
	"context"
	"strings"

	"golang.org/x/text/cases"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/session"
)

// Name is the server type name under resources_servers.
const Name = "example_mcp_weather"

func init() { framework.Register(Name, func() framework.Server { return new(Weather) }) }

// Weather is the server. It has no config keys of its own.
type Weather struct {
	framework.Base
}

// stateKey is the session state key of a rollout's weather state.
const stateKey = "weather"

// state is one rollout's record.
type state struct {
	ExpectedCity framework.Value `json:"expected_city"`
	WeatherCalls []call          `json:"weather_calls"`
}

type call struct {
	City    string `json:"city"`
	Weather string `json:"weather"`
}

// SeedRequest is the seed body: any object; verifier_metadata, when present,
// must be an object or null. Other keys (the dataset row) are ignored.
type SeedRequest struct {
	VerifierMetadata *framework.Object `json:"verifier_metadata"`
}

// GetWeatherRequest is the get_weather tool's input.
type GetWeatherRequest struct {
	// City is the city to report on (required; any string).
	City string `json:"city" required:"true"`
}

// GetWeatherResponse is the get_weather tool's result.
type GetWeatherResponse struct {
	// Weather is "The weather in <city> is sunny and 72 F.".
	Weather string `json:"weather"`
}

// VerifyRequest is the /verify body: the common fields, optional
// verifier_metadata, and any other keys (echoed back).
type VerifyRequest struct {
	framework.VerifyRequest
	VerifierMetadata *framework.Object `json:"verifier_metadata"`
	framework.Extra
}

// VerifyResponse is the /verify answer, in the Python original's key order.
// The reward is 1.0 when ToolCallSeen and FinalResponseMentionsWeather
// both hold, else 0.0.
type VerifyResponse struct {
	framework.VerifyResponse
	// ExpectedWeather is get_weather's sentence for verifier_metadata's
	// expected_city ("Paris" when absent).
	ExpectedWeather string `json:"expected_weather"`
	// ToolCallSeen reports that the rollout's session called get_weather
	// for the expected city (compared case-folded).
	ToolCallSeen bool `json:"tool_call_seen"`
	// FinalResponseMentionsWeather reports that the response's assistant
	// text holds ExpectedWeather (compared case-folded).
	FinalResponseMentionsWeather bool `json:"final_response_mentions_weather"`
	// VerifierMetadata is the request's verifier_metadata, echoed (null
	// when absent).
	VerifierMetadata *framework.Object `json:"verifier_metadata"`
	framework.Extra
}

// Routes declares get_weather, the seed and verify.
func (s *Weather) Routes(r *framework.Router) {
	framework.Post(r, "/get_weather", s.getWeather,
		framework.Description("Get a deterministic weather report for a city."), framework.ReadOnly())
	framework.SeedSession(r, s.seed)
	framework.Verify(r, s.verify)
}

func sentence(city string) string { return "The weather in " + city + " is sunny and 72 F." }

func (s *Weather) seed(ctx context.Context, req SeedRequest) (struct{}, error) {
	expected := framework.Value{Kind: framework.KindString, Str: "Paris"}
	if req.VerifierMetadata != nil {
		if v, ok := req.VerifierMetadata.Get("expected_city"); ok {
			expected = v
		}
	}
	return struct{}{}, session.Update(ctx, stateKey, func(st *state) error {
		*st = state{ExpectedCity: expected, WeatherCalls: []call{}}
		return nil
	})
}

func (s *Weather) getWeather(ctx context.Context, req GetWeatherRequest) (GetWeatherResponse, error) {
	w := sentence(req.City)
	err := session.Update(ctx, stateKey, func(st *state) error {
		st.WeatherCalls = append(st.WeatherCalls, call{City: req.City, Weather: w})
		return nil
	})
	return GetWeatherResponse{Weather: w}, err
}

func (s *Weather) verify(ctx context.Context, req VerifyRequest) (VerifyResponse, error) {
	expected := framework.Value{Kind: framework.KindString, Str: "Paris"}
	if req.VerifierMetadata != nil {
		if v, ok := req.VerifierMetadata.Get("expected_city"); ok {
			expected = v
		}
	}
	if expected.Kind != framework.KindString {
		// Python: expected_city.casefold() on a non-str.
		return VerifyResponse{}, framework.PythonError("AttributeError", "'"+framework.PythonTypeName(expected)+"' object has no attribute 'casefold'")
	}
	city := expected.Str
	expectedWeather := sentence(city)
	st, _, err := session.Get[state](ctx, stateKey)
	if err != nil {
		return VerifyResponse{}, err
	}
	fold := cases.Fold()
	seen := false
	for _, c := range st.WeatherCalls {
		if fold.String(c.City) == fold.String(city) {
			seen = true
			break
		}
	}
	mentions := strings.Contains(fold.String(req.Response.AssistantText()), fold.String(expectedWeather))
	resp := VerifyResponse{
		ExpectedWeather:              expectedWeather,
		ToolCallSeen:                 seen,
		FinalResponseMentionsWeather: mentions,
		VerifierMetadata:             req.VerifierMetadata,
	}
	if seen && mentions {
		resp.Reward = 1.0
	}
	return resp, nil
}
