package framework_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/framework/host"
)

// post sends one JSON POST to an App's handler and prints status and body.
func post(h http.Handler, path, body string) {
	req := httptest.NewRequest("POST", path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	b, _ := io.ReadAll(rec.Body)
	fmt.Println(rec.Code, string(b))
}

type AddRequest struct {
	A int `json:"a" required:"true"`
	B int `json:"b" required:"true"`
}

type AddResponse struct {
	Sum int `json:"sum"`
}

type adder struct{ framework.Base }

func (s *adder) Routes(r *framework.Router) {
	framework.Post(r, "/add", func(_ context.Context, req AddRequest) (AddResponse, error) {
		return AddResponse{Sum: req.A + req.B}, nil
	}, framework.Description("Add two integers."))
	framework.Verify(r, func(context.Context, framework.VerifyRequest) (framework.VerifyResponse, error) {
		return framework.VerifyResponse{Reward: 1}, nil
	})
}

// A typed tool: the body is decoded with pydantic's lax rules ("2" is an int)
// and a bad body is FastAPI's 422.
func ExamplePost() {
	app, err := host.Build(context.Background(), new(adder), host.Options{})
	if err != nil {
		panic(err)
	}
	post(app.Handler(), "/add", `{"a":1,"b":"2"}`)
	post(app.Handler(), "/add", `{"a":1}`)
	// Output:
	// 200 {"sum":3}
	// 422 {"detail":[{"type":"missing","loc":["body","b"],"msg":"Field required","input":{"a":1}}]}
}

type calculator struct{ framework.Base }

type operands struct {
	A *float64 `json:"a"`
	B *float64 `json:"b"`
}

func (s *calculator) Routes(r *framework.Router) {
	framework.Dispatch(r, func(_ context.Context, tool string, args json.RawMessage) (any, error) {
		in, err := framework.Decode[operands](args)
		if err != nil {
			return nil, err
		}
		switch tool {
		case "add":
			if in.A == nil || in.B == nil {
				return nil, framework.Errorf(500, "add() needs a and b")
			}
			return map[string]float64{"solution": *in.A + *in.B}, nil
		}
		return nil, framework.Errorf(404, "Function not found")
	})
	framework.Verify(r, func(context.Context, framework.VerifyRequest) (framework.VerifyResponse, error) {
		return framework.VerifyResponse{}, nil
	})
}

// A dispatcher: one catch-all POST /{tool}; Decode validates like Post.
func ExampleDispatch() {
	app, err := host.Build(context.Background(), new(calculator), host.Options{})
	if err != nil {
		panic(err)
	}
	post(app.Handler(), "/add", `{"a":1,"b":2}`)
	post(app.Handler(), "/sqrt", `{"a":4}`)
	post(app.Handler(), "/add", `{"a":"x"}`)
	// Output:
	// 200 {"solution":3.0}
	// 404 {"detail":"Function not found"}
	// 422 {"detail":[{"type":"float_parsing","loc":["body","a"],"msg":"Input should be a valid number, unable to parse string as a number","input":"x"}]}
}

type grader struct{ framework.Base }

type GradeRequest struct {
	framework.VerifyRequest
	Expected string `json:"expected" required:"true"`
}

type GradeResponse struct {
	framework.VerifyResponse
	Answer string `json:"answer"`
}

func (s *grader) Routes(r *framework.Router) {
	framework.Verify(r, func(_ context.Context, req GradeRequest) (GradeResponse, error) {
		answer := req.Response.AssistantText()
		resp := GradeResponse{Answer: answer}
		if answer == req.Expected {
			resp.Reward = 1
		}
		return resp, nil
	})
}

// Verify scores a trajectory; the answer echoes responses_create_params and
// response as NeMo's pydantic models dump them (defaults filled, nulls kept,
// keys in model order), then reward and the environment's fields.
func ExampleVerify() {
	app, err := host.Build(context.Background(), new(grader), host.Options{})
	if err != nil {
		panic(err)
	}
	post(app.Handler(), "/verify", `{"responses_create_params":{"input":"2+2?"},"response":{"id":"r","created_at":0,"model":"m","object":"response","output":[{"id":"msg_1","type":"message","role":"assistant","status":"completed","content":[{"type":"output_text","text":"4","annotations":[]}]}],"parallel_tool_calls":true,"tool_choice":"auto","tools":[]},"expected":"4"}`)
	// Output:
	// 200 {"responses_create_params":{"background":null,"include":null,"input":"2+2?","instructions":null,"max_output_tokens":null,"max_tool_calls":null,"metadata":null,"model":null,"parallel_tool_calls":true,"previous_response_id":null,"prompt":null,"reasoning":null,"service_tier":null,"store":null,"temperature":null,"text":null,"tool_choice":"auto","tools":[],"top_logprobs":null,"top_p":null,"truncation":null,"user":null,"stream":null},"response":{"id":"r","created_at":0.0,"error":null,"incomplete_details":null,"instructions":null,"metadata":null,"model":"m","object":"response","output":[{"id":"msg_1","content":[{"annotations":[],"text":"4","type":"output_text","logprobs":null}],"role":"assistant","status":"completed","type":"message"}],"parallel_tool_calls":true,"temperature":null,"tool_choice":"auto","tools":[],"top_p":null,"background":null,"conversation":null,"max_output_tokens":null,"max_tool_calls":null,"previous_response_id":null,"prompt":null,"prompt_cache_key":null,"reasoning":null,"safety_identifier":null,"service_tier":null,"status":null,"text":null,"top_logprobs":null,"truncation":null,"usage":null,"user":null},"reward":1.0,"answer":"4"}
}

type TotalRequest struct {
	A framework.Int `json:"a" required:"true"`
	B framework.Int `json:"b" required:"true"`
}

type TotalResponse struct {
	Total framework.Int `json:"total"`
}

type totaler struct{ framework.Base }

func (s *totaler) Routes(r *framework.Router) {
	framework.Post(r, "/total", func(_ context.Context, req TotalRequest) (TotalResponse, error) {
		return TotalResponse{Total: req.A.Add(req.B)}, nil
	})
	framework.Verify(r, func(context.Context, framework.VerifyRequest) (framework.VerifyResponse, error) {
		return framework.VerifyResponse{}, nil
	})
}

// Int is Python's unbounded int: decoded with pydantic's lax int rules
// ("5", " 5 ", 1.0 and true are ints; 1.5 is not), summed exactly beyond
// int64, and written as a bare JSON integer.
func ExampleInt() {
	app, err := host.Build(context.Background(), new(totaler), host.Options{})
	if err != nil {
		panic(err)
	}
	post(app.Handler(), "/total", `{"a":123456789012345678901234567890,"b":" 1021 "}`)
	post(app.Handler(), "/total", `{"a":9223372036854775807,"b":true}`)
	post(app.Handler(), "/total", `{"a":1.5,"b":"abc"}`)
	n, _ := framework.ParseInt("-123456789012345678901234567890")
	fmt.Println(n.Add(framework.IntOf(1)), n.Sign())
	// Output:
	// 200 {"total":123456789012345678901234568911}
	// 200 {"total":9223372036854775808}
	// 422 {"detail":[{"type":"int_from_float","loc":["body","a"],"msg":"Input should be a valid integer, got a number with a fractional part","input":1.5},{"type":"int_parsing","loc":["body","b"],"msg":"Input should be a valid integer, unable to parse string as an integer","input":"abc"}]}
	// -123456789012345678901234567889 -1
}
