package framework

import (
	"strings"

	"github.com/gymkit/gymkit/framework/internal/lax"
)

// ResponseCreateParams is the Responses API request of a rollout
// (NeMoGymResponseCreateParamsNonStreaming, contract a.4). It forbids unknown
// keys (422 extra_forbidden); only input is required. Fields other than Input
// are kept as received ([Value]); the verify echo writes the object exactly as
// received, so no field is lost or defaulted.
type ResponseCreateParams struct {
	lax.Forbid
	Input              Value `json:"input" required:"true"`
	Tools              Value `json:"tools"`
	ParallelToolCalls  Value `json:"parallel_tool_calls"`
	ToolChoice         Value `json:"tool_choice"`
	Background         Value `json:"background"`
	Conversation       Value `json:"conversation"`
	Include            Value `json:"include"`
	Instructions       Value `json:"instructions"`
	MaxOutputTokens    Value `json:"max_output_tokens"`
	MaxToolCalls       Value `json:"max_tool_calls"`
	Metadata           Value `json:"metadata"`
	Model              Value `json:"model"`
	PreviousResponseID Value `json:"previous_response_id"`
	Prompt             Value `json:"prompt"`
	PromptCacheKey     Value `json:"prompt_cache_key"`
	Reasoning          Value `json:"reasoning"`
	SafetyIdentifier   Value `json:"safety_identifier"`
	ServiceTier        Value `json:"service_tier"`
	Store              Value `json:"store"`
	Stream             Value `json:"stream"`
	StreamOptions      Value `json:"stream_options"`
	Temperature        Value `json:"temperature"`
	Text               Value `json:"text"`
	TopLogprobs        Value `json:"top_logprobs"`
	TopP               Value `json:"top_p"`
	Truncation         Value `json:"truncation"`
	User               Value `json:"user"`
}

// Response is the finished trajectory of a rollout, an OpenAI Responses API
// response (NeMoGymResponse, contract a.4). The required keys are id,
// created_at, model, object, output, parallel_tool_calls, tool_choice and
// tools; every output item must carry "type". Other keys are accepted; the
// verify echo writes the object exactly as received.
type Response struct {
	ID                string       `json:"id" required:"true"`
	CreatedAt         float64      `json:"created_at" required:"true"`
	Model             string       `json:"model" required:"true"`
	Object            string       `json:"object" required:"true"`
	Output            []OutputItem `json:"output" required:"true"`
	ParallelToolCalls bool         `json:"parallel_tool_calls" required:"true"`
	ToolChoice        Value        `json:"tool_choice" required:"true"`
	Tools             []Value      `json:"tools" required:"true"`
	Usage             Value        `json:"usage"`
	Status            Value        `json:"status"`
}

// OutputItem is one item of Response.Output. Type is the discriminator
// ("message", "function_call", "function_call_output", "reasoning", or a
// hosted-tool item type); the other fields are those the common item types
// carry, empty when absent.
type OutputItem struct {
	Type string `json:"type" required:"true"`
	ID   string `json:"id"`
	// Role is "assistant" for message items.
	Role   string `json:"role"`
	Status string `json:"status"`
	// Content is a message's content: a list of parts ({"type":"output_text",
	// "text":...} or {"type":"refusal",...}) or, from lenient clients, a string.
	Content Value `json:"content"`
	// Name, Arguments (JSON text) and CallID belong to function_call items.
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	CallID    string `json:"call_id"`
	// Output is a function_call_output's output: a string or a list of parts.
	Output Value `json:"output"`
}

// FunctionCalls returns the function_call items of the output, in order.
func (r Response) FunctionCalls() []OutputItem {
	var out []OutputItem
	for _, it := range r.Output {
		if it.Type == "function_call" {
			out = append(out, it)
		}
	}
	return out
}

// AssistantText joins the text of every assistant message item: each content
// part with a string "text" (output_text parts), or a string content, joined
// with "\n" and trimmed of surrounding white space (Python str.strip).
func (r Response) AssistantText() string {
	var parts []string
	for _, it := range r.Output {
		if it.Type != "message" || it.Role != "assistant" {
			continue
		}
		switch it.Content.Kind {
		case KindString:
			parts = append(parts, it.Content.Str)
		case KindArray:
			for _, p := range it.Content.Items {
				if t, ok := p.Get("text"); ok && t.Kind == KindString {
					parts = append(parts, t.Str)
				}
			}
		}
	}
	return strings.TrimFunc(strings.Join(parts, "\n"), isPySpace)
}

// isPySpace reports whether r is white space for Python's str.strip().
func isPySpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\v', '\f', '\r', 0x1c, 0x1d, 0x1e, 0x1f, 0x85, 0xa0, 0x1680,
		0x2028, 0x2029, 0x202f, 0x205f, 0x3000:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// VerifyRequest is the common part of a /verify body (NeMo's
// BaseVerifyRequest): embed it in an environment's verify request type and add
// the task fields:
//
//	type VerifyRequest struct {
//		framework.VerifyRequest
//		ExpectedCount int `json:"expected_count" required:"true"`
//	}
//
// Unknown top-level keys are dropped unless the type also embeds [Extra].
type VerifyRequest struct {
	ResponsesCreateParams ResponseCreateParams `json:"responses_create_params" required:"true"`
	Response              Response             `json:"response" required:"true"`

	raw Value // the whole body as received
}

// Raw returns the whole /verify body as received.
func (r *VerifyRequest) Raw() Value { return r.raw }

func (r *VerifyRequest) mustEmbedVerifyRequest() *VerifyRequest { return r }

type verifyRequester interface{ mustEmbedVerifyRequest() *VerifyRequest }

// VerifyResponse is the common part of a /verify answer (NeMo's
// BaseVerifyResponse): embed it first in an environment's verify response type
// and set Reward and the environment's own fields. The framework fills
// ResponsesCreateParams and Response with the request's objects as received,
// so the answer starts {"responses_create_params":...,"response":...,
// "reward":...} followed by the environment's fields in declaration order.
//
// Other request fields are echoed only when the response type declares them
// (copy them over from the request) or embeds [Extra]: an Extra left empty by
// the handler receives every key of the request's dump that the response does
// not declare, in dump order. The dump is pydantic's body.model_dump(): the
// request type's declared fields in declaration order with their decoded
// values (absent optional fields as their zero value or null), then its own
// Extra keys if it embeds Extra. This is NeMo's Resp(**body.model_dump(), ...)
// (contract a.4).
type VerifyResponse struct {
	ResponsesCreateParams Value   `json:"responses_create_params"`
	Response              Value   `json:"response"`
	Reward                float64 `json:"reward"`
}

func (r *VerifyResponse) mustEmbedVerifyResponse() *VerifyResponse { return r }

type verifyResponder interface{ mustEmbedVerifyResponse() *VerifyResponse }
