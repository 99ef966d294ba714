package framework

import (
	"strings"

	"github.com/gymkit/gymkit/internal/lax"
	"github.com/gymkit/gymkit/internal/pyjson"
	"github.com/gymkit/gymkit/internal/pymodel"
)

// ResponseCreateParams is the Responses API request of a rollout, validated
// as NeMo's pydantic model NeMoGymResponseCreateParamsNonStreaming (contract
// a.4; the model is generated from the goldens' GET /openapi.json, see
// internal/pymodel). Only input is required; unknown keys are 422
// extra_forbidden; null is accepted wherever the model is Optional; a bad
// value gives pydantic's 422 items, union members tagged in loc as pydantic
// tags them (../shared/data/nemo-gym-peer/example_mcp_weather.jsonl).
//
// The fields hold the validated model's model_dump() values, defaults filled:
// an absent parallel_tool_calls is true, tool_choice "auto", tools [], the
// other optional fields null; input items are dumped by the model that
// matched ({"role":"user","content":"hi"} becomes {"content":"hi",
// "role":"user","type":"message"}). [ResponseCreateParams.Dump] is the whole
// dump in the model's field order, and the value is written as that dump.
// The zero ResponseCreateParams (not decoded from a body) has null fields and
// a null Dump.
type ResponseCreateParams struct {
	Input             Value `json:"input"`
	Tools             Value `json:"tools"`
	ParallelToolCalls Value `json:"parallel_tool_calls"`
	ToolChoice        Value `json:"tool_choice"`

	// The other fields are the model's optional parameters of the same JSON
	// names (OpenAI's Responses API create parameters), null when absent.
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

	dump Value
}

// responseCreateParamsModel is the pydantic model of ResponseCreateParams.
const responseCreateParamsModel = "NeMoGymResponseCreateParamsNonStreaming"

// Dump returns the validated request as pydantic's model_dump() writes it:
// every field of NeMoGymResponseCreateParamsNonStreaming in field order,
// defaults filled, nulls kept. It is null for a zero ResponseCreateParams.
// The Value shares memory with the decoded body: treat it as read-only.
func (p ResponseCreateParams) Dump() Value { return p.dump }

// MarshalJSON writes [ResponseCreateParams.Dump] (null for the zero value).
func (p ResponseCreateParams) MarshalJSON() ([]byte, error) {
	return pyjson.AppendValue(nil, &p.dump, pyjson.Pydantic)
}

// UnmarshalPy validates v as NeMoGymResponseCreateParamsNonStreaming and
// stores the dump; it is how gymkit's body decoder reaches the type, not an
// API to call. On failure it returns pydantic's items and leaves p unchanged.
func (p *ResponseCreateParams) UnmarshalPy(v pyjson.Value, m lax.Mode) []lax.ErrorItem {
	dump, items := pymodel.Validate(responseCreateParamsModel, v, m)
	if items != nil {
		return items
	}
	*p = ResponseCreateParams{dump: dump}
	for _, mem := range dump.Members {
		switch mem.Key {
		case "input":
			p.Input = mem.Value
		case "tools":
			p.Tools = mem.Value
		case "parallel_tool_calls":
			p.ParallelToolCalls = mem.Value
		case "tool_choice":
			p.ToolChoice = mem.Value
		case "background":
			p.Background = mem.Value
		case "conversation":
			p.Conversation = mem.Value
		case "include":
			p.Include = mem.Value
		case "instructions":
			p.Instructions = mem.Value
		case "max_output_tokens":
			p.MaxOutputTokens = mem.Value
		case "max_tool_calls":
			p.MaxToolCalls = mem.Value
		case "metadata":
			p.Metadata = mem.Value
		case "model":
			p.Model = mem.Value
		case "previous_response_id":
			p.PreviousResponseID = mem.Value
		case "prompt":
			p.Prompt = mem.Value
		case "prompt_cache_key":
			p.PromptCacheKey = mem.Value
		case "reasoning":
			p.Reasoning = mem.Value
		case "safety_identifier":
			p.SafetyIdentifier = mem.Value
		case "service_tier":
			p.ServiceTier = mem.Value
		case "store":
			p.Store = mem.Value
		case "stream":
			p.Stream = mem.Value
		case "stream_options":
			p.StreamOptions = mem.Value
		case "temperature":
			p.Temperature = mem.Value
		case "text":
			p.Text = mem.Value
		case "top_logprobs":
			p.TopLogprobs = mem.Value
		case "top_p":
			p.TopP = mem.Value
		case "truncation":
			p.Truncation = mem.Value
		case "user":
			p.User = mem.Value
		}
	}
	return nil
}

// Response is the finished trajectory of a rollout, an OpenAI Responses API
// response validated as NeMo's pydantic model NeMoGymResponse (contract a.4;
// generated from the goldens' GET /openapi.json, see
// internal/pymodel). The required keys are id, created_at, model,
// object ("response"), output, parallel_tool_calls, tool_choice and tools;
// unknown keys are kept (extra="allow"). Each output item must match one
// member of NeMo's output item union (messages, function calls and outputs,
// reasoning, MCP and hosted-tool items, and the *ForTraining variants that
// carry prompt_token_ids, generation_token_ids and generation_log_probs);
// an item that matches none, such as an assistant message without id and
// status or an unknown type, is a 422 listing every member's errors, each
// under the member's name in loc, as pydantic's smart union does
// (../shared/data/nemo-gym-peer/example_mcp_weather.jsonl, "verify
// matching": 115 items). Null is accepted wherever the model is Optional:
// the "id": null, "status": null that NeMo's agents put on
// function_call_output items are valid.
//
// The typed fields are read from the validated dump; Usage and Status are
// null when absent. [Response.Dump] is the whole model_dump() (defaults
// filled, created_at a float, keys in field order, nulls kept, training
// fields as sent), and the value is written as that dump. The zero Response
// (not decoded from a body) has a null Dump.
type Response struct {
	ID                string       `json:"id"`
	CreatedAt         float64      `json:"created_at"`
	Model             string       `json:"model"`
	Object            string       `json:"object"`
	Output            []OutputItem `json:"output"`
	ParallelToolCalls bool         `json:"parallel_tool_calls"`
	ToolChoice        Value        `json:"tool_choice"`
	Tools             []Value      `json:"tools"`
	Usage             Value        `json:"usage"`
	Status            Value        `json:"status"`

	dump Value
}

// responseModel is the pydantic model of Response.
const responseModel = "NeMoGymResponse"

// Dump returns the validated response as pydantic's model_dump() writes it
// (every field of NeMoGymResponse in field order, then its extra keys; each
// output item dumped by the model that matched it). It is null for a zero
// Response. The Value shares memory with the decoded body: treat it as
// read-only.
func (r Response) Dump() Value { return r.dump }

// MarshalJSON writes [Response.Dump] (null for the zero value).
func (r Response) MarshalJSON() ([]byte, error) {
	return pyjson.AppendValue(nil, &r.dump, pyjson.Pydantic)
}

// UnmarshalPy validates v as NeMoGymResponse and stores the dump and the
// typed fields; it is how gymkit's body decoder reaches the type, not an API
// to call. On failure it returns pydantic's items and leaves r unchanged.
func (r *Response) UnmarshalPy(v pyjson.Value, m lax.Mode) []lax.ErrorItem {
	dump, items := pymodel.Validate(responseModel, v, m)
	if items != nil {
		return items
	}
	*r = Response{dump: dump}
	for _, mem := range dump.Members {
		x := mem.Value
		switch mem.Key {
		case "id":
			r.ID = x.Str
		case "created_at":
			r.CreatedAt, _ = x.Float()
		case "model":
			r.Model = x.Str
		case "object":
			r.Object = x.Str
		case "output":
			r.Output = make([]OutputItem, len(x.Items))
			for i, it := range x.Items {
				r.Output[i] = outputItem(it)
			}
		case "parallel_tool_calls":
			r.ParallelToolCalls = x.Bool
		case "tool_choice":
			r.ToolChoice = x
		case "tools":
			r.Tools = x.Items
			if r.Tools == nil {
				r.Tools = []Value{}
			}
		case "usage":
			r.Usage = x
		case "status":
			r.Status = x
		}
	}
	return nil
}

// OutputItem is one item of Response.Output, read from its validated dump.
// Type is the discriminator ("message", "function_call",
// "function_call_output", "reasoning", or a hosted-tool item type); the
// other fields are those the common item types carry, "" or null when the
// item has none or holds null (an "id": null reads as ID "").
type OutputItem struct {
	Type string `json:"type"`
	ID   string `json:"id"`
	// Role is "assistant" for output message items.
	Role   string `json:"role"`
	Status string `json:"status"`
	// Content is a message's content: a list of parts ({"type":"output_text",
	// "text":..., ...} or {"type":"refusal",...}), or a string for input
	// messages.
	Content Value `json:"content"`
	// Name, Arguments (JSON text) and CallID belong to function_call items.
	// With MCP exposure on, the verify handler sees Name without its
	// mcp__<instance>__ prefix; Dump keeps the name as emitted.
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	CallID    string `json:"call_id"`
	// Output is a function_call_output's output: a string or a list of parts.
	Output Value `json:"output"`
	// Dump is the whole item as model_dump() writes it, including the fields
	// not listed above (prompt_token_ids, generation_token_ids and
	// generation_log_probs of the *ForTraining items, summary, ...).
	Dump Value `json:"-"`
}

// outputItem reads the typed fields of a dumped output item.
func outputItem(it Value) OutputItem {
	o := OutputItem{Dump: it}
	str := func(key string) string {
		v, _ := it.Get(key)
		if v.Kind == KindString {
			return v.Str
		}
		return ""
	}
	o.Type, o.ID, o.Role, o.Status = str("type"), str("id"), str("role"), str("status")
	o.Name, o.Arguments, o.CallID = str("name"), str("arguments"), str("call_id")
	o.Content, _ = it.Get("content")
	o.Output, _ = it.Get("output")
	return o
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
// responses_create_params and response are required and validated as NeMo's
// pydantic models ([ResponseCreateParams], [Response]); a failure is a 422
// with pydantic's items, before the environment's own fields' items.
// Unknown top-level keys are dropped unless the type also embeds [Extra].
type VerifyRequest struct {
	ResponsesCreateParams ResponseCreateParams `json:"responses_create_params" required:"true"`
	Response              Response             `json:"response" required:"true"`

	raw *body // the whole body as received, parsed in full by Raw
}

// Raw returns the whole /verify body as received (before validation and
// before MCP tool names are normalized), JSON null for a VerifyRequest not
// decoded from a body. The tree is built on the first call (the body's
// text is kept until then); later calls return the same Value.
func (r *VerifyRequest) Raw() Value { return r.raw.value() }

func (r *VerifyRequest) mustEmbedVerifyRequest() *VerifyRequest { return r }

type verifyRequester interface{ mustEmbedVerifyRequest() *VerifyRequest }

// VerifyResponse is the common part of a /verify answer (NeMo's
// BaseVerifyResponse): embed it first in an environment's verify response type
// and set Reward and the environment's own fields. The framework fills
// ResponsesCreateParams and Response with the dumps of the validated request
// parts ([ResponseCreateParams.Dump], [Response.Dump]: pydantic's
// model_dump(), defaults filled, nulls kept, keys in model order, created_at
// a float, function_call names as emitted), so the answer starts
// {"responses_create_params":...,"response":...,"reward":...} followed by the
// environment's fields in declaration order, as Python's answer does
// (../shared/data/nemo-gym-peer/*.jsonl, every 200 /verify).
//
// Other request fields are echoed only when the response type declares them
// (copy them over from the request) or embeds [Extra]: an Extra the handler
// left unset (the zero Extra; see [Extra.IsSet]) receives every key of the
// request's dump that the response does not declare, in dump order; an Extra
// it set (ExtraOf, Set, Delete, Clear, or the request's Extra assigned) is
// written as it is, empty included, and a key the response declares is
// written once, from the response's field. The dump is pydantic's body.model_dump(): the
// request type's declared fields in declaration order with their decoded
// values (absent optional fields as their zero value or null;
// responses_create_params and response as their dumps), then its own Extra
// keys if it embeds Extra. This is NeMo's Resp(**body.model_dump(), ...)
// (contract a.4).
type VerifyResponse struct {
	ResponsesCreateParams Value   `json:"responses_create_params"`
	Response              Value   `json:"response"`
	Reward                float64 `json:"reward"`
}

func (r *VerifyResponse) mustEmbedVerifyResponse() *VerifyResponse { return r }

type verifyResponder interface{ mustEmbedVerifyResponse() *VerifyResponse }
