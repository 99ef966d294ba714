package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/session"
)

// diffServerType is a test-only server type whose config keys switch on,
// one by one, the differences gymkit compare reports, and the answers that
// gymkit rollout's bounds stop: one tool, /measure, a seed and a verify.
// It exists only in this test binary.
const diffServerType = "gymkit_test_diff"

func init() { framework.Register(diffServerType, func() framework.Server { return new(diffServer) }) }

type diffServer struct {
	framework.Base
	// ToolStatus, when not 0, makes /measure answer this status with
	// {"detail": "measure refused"} (on the MCP door: an isError result).
	ToolStatus int `koanf:"tool_status"`
	// IntValue writes /measure's value as 1 instead of 1.0.
	IntValue bool `koanf:"int_value"`
	// DropNote leaves "note" out of the verify answer.
	DropNote bool `koanf:"drop_note"`
	// Clock adds judge_evaluations[0].response.created_at, read from the
	// clock (as a judge model's answer carries it), to the verify answer.
	Clock bool `koanf:"clock"`
	// PadBytes pads /measure's answer with a "pad" string of this many
	// bytes.
	PadBytes int `koanf:"pad_bytes"`
	// Hang makes /measure never answer (until the client goes away).
	Hang bool `koanf:"hang"`
	// RefuseInput makes the seed of a row whose
	// responses_create_params.input is this string answer 400
	// {"detail": "seed refused"}.
	RefuseInput string `koanf:"refuse_input"`
	// EchoSession adds the rollout's session id to the verify answer
	// ("session_id"), as a server quoting its session would.
	EchoSession bool `koanf:"echo_session"`
}

type diffSeedRequest struct {
	ResponsesCreateParams struct {
		Input framework.Value `json:"input"`
	} `json:"responses_create_params"`
}

type measureRequest struct {
	Unit string `json:"unit" required:"true"`
}

type measureResponse struct {
	Value framework.Value `json:"value"`
	Unit  string          `json:"unit"`
	Pad   string          `json:"pad,omitempty"`
}

type judgeResponse struct {
	CreatedAt framework.Value `json:"created_at"`
}

type judgeEvaluation struct {
	Response judgeResponse `json:"response"`
}

type diffVerifyResponse struct {
	framework.VerifyResponse
	Note             *string           `json:"note,omitempty"`
	JudgeEvaluations []judgeEvaluation `json:"judge_evaluations,omitempty"`
	SessionID        string            `json:"session_id,omitempty"`
}

func (s *diffServer) Routes(r *framework.Router) {
	framework.Post(r, "/measure", s.measure, framework.Description("Measure something."))
	framework.SeedSession(r, s.seed)
	framework.Verify(r, s.verify)
}

func (s *diffServer) seed(ctx context.Context, req diffSeedRequest) (struct{}, error) {
	if in := req.ResponsesCreateParams.Input; s.RefuseInput != "" && in.Kind == framework.KindString && in.Str == s.RefuseInput {
		return struct{}{}, framework.Errorf(400, "seed refused")
	}
	return struct{}{}, nil
}

func (s *diffServer) measure(ctx context.Context, req measureRequest) (measureResponse, error) {
	if s.Hang {
		<-ctx.Done()
		return measureResponse{}, ctx.Err()
	}
	if s.ToolStatus != 0 {
		return measureResponse{}, framework.Errorf(s.ToolStatus, "measure refused")
	}
	v := "1.0"
	if s.IntValue {
		v = "1"
	}
	return measureResponse{Value: framework.NumberValue(v), Unit: req.Unit, Pad: strings.Repeat("x", s.PadBytes)}, nil
}

func (s *diffServer) verify(ctx context.Context, req framework.VerifyRequest) (diffVerifyResponse, error) {
	resp := diffVerifyResponse{VerifyResponse: framework.VerifyResponse{Reward: 1}}
	if !s.DropNote {
		note := "measured"
		resp.Note = &note
	}
	if s.EchoSession {
		resp.SessionID = session.ID(ctx)
	}
	if s.Clock {
		now := time.Now()
		created := framework.NumberValue(fmt.Sprintf("%d.%09d", now.Unix(), now.Nanosecond()))
		resp.JudgeEvaluations = []judgeEvaluation{{Response: judgeResponse{CreatedAt: created}}}
	}
	return resp, nil
}
