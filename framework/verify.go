package framework

import (
	"context"
	"encoding/json"
	"reflect"
	"unsafe"

	"github.com/gymkit/gymkit/framework/internal/schema"
	"github.com/gymkit/gymkit/internal/lax"
	"github.com/gymkit/gymkit/internal/model"
	"github.com/gymkit/gymkit/internal/pyjson"
)

// SeedSession replaces the default POST /seed_session (which accepts any JSON
// object and answers {}). The body is decoded into Req like a tool's; the
// handler starts the rollout's state under [session] id and returns the answer
// (usually struct{}{} for {}). NeMo's agents send the whole dataset row as the
// body (contract a.3), so ignore what you do not need: unknown keys are
// dropped unless Req embeds [Extra].
//
// The seed route is not a tool. With MCP exposure on, the host adds the "mcp"
// key to a JSON-object answer (contract d.3).
func SeedSession[Req, Resp any](r *Router, h func(ctx context.Context, req Req) (Resp, error)) {
	if h == nil {
		r.errorf("SeedSession: nil handler")
		return
	}
	if r.seed != nil {
		r.errorf("SeedSession: registered twice")
		return
	}
	dec, in, kind, err := decoder[Req]("seed_session")
	if err != nil {
		r.errorf("SeedSession: %v", err)
		return
	}
	r.seed = &Tool{
		Name:        "seed_session",
		InputSchema: in,
		noBody:      kind == bodyNone,
		path:        "/seed_session",
		invoke: func(ctx context.Context, _ string, args *body, raw []byte) (any, error) {
			req, err := dec(ctx, args, raw)
			if err != nil {
				return nil, err
			}
			return h(ctx, req)
		},
	}
}

// defaultSeed is NeMo's base seed: any object, answer {}.
func defaultSeed() *Tool {
	return &Tool{
		Name: "seed_session",
		path: "/seed_session",
		invoke: func(_ context.Context, _ string, b *body, _ []byte) (any, error) {
			if !b.isObject() { // known without the tree
				return nil, modelAttributesError(b.value())
			}
			return struct{}{}, nil
		},
	}
}

// modelAttributesError is FastAPI's 422 for a body model given a non-object.
func modelAttributesError(v pyjson.Value) error {
	return &ValidationError{items: []lax.ErrorItem{{
		Type: "model_attributes_type", Loc: []any{},
		Msg: "Input should be a valid dictionary or object to extract fields from", Input: v,
	}}}
}

// verifyRoute is the compiled POST /verify.
type verifyRoute struct {
	invoke func(ctx context.Context, b *body, normalize func(string) string) (any, error)

	reqSchema, respSchema json.RawMessage // nil when not generated
}

// Verify registers POST /verify, which scores a finished rollout (contract
// a.4). Req embeds [VerifyRequest]: responses_create_params and response are
// validated as NeMo's pydantic models do (see [ResponseCreateParams] and
// [Response]; a failure is a 422 with pydantic's items, e.g. 115 items for an
// assistant message item without id (status defaults to "completed"), as
// ../shared/data/nemo-gym-peer/example_mcp_weather.jsonl records). Resp embeds
// [VerifyResponse] and sets Reward. The answer echoes the request's model
// dumps as [VerifyResponse] describes. Every server must register Verify:
// one that does not is refused at startup.
//
// Req's and Resp's [Extra] may be embedded directly, as *Extra, or in an
// embedded struct or pointer to one (the shallowest counts, as for the
// decoder and the encoder). The echo is written into the answer only: a
// struct that Resp reaches through a pointer, or that the handler's copy
// of req shares, is copied before the framework changes it, so a handler
// may keep its request or answer with a struct it shares across requests
// (tests/breaktest TestVerifyEchoDoesNotWriteHandlerMemory).
//
// With MCP exposure on, function_call names of the form
// mcp__<instance>__<tool> are seen by h as <tool> (OutputItem.Name of
// Response.Output and FunctionCalls) and echoed as emitted (the dumps keep
// them; contract d.7).
func Verify[Req any, Resp any, PReq interface {
	*Req
	verifyRequester
}, PResp interface {
	*Resp
	verifyResponder
}](r *Router, h func(ctx context.Context, req Req) (Resp, error)) {
	if h == nil {
		r.errorf("Verify: nil handler")
		return
	}
	if r.verify != nil {
		r.errorf("Verify: registered twice")
		return
	}
	plan, err := lax.Compile(reflect.TypeFor[Req]())
	if err != nil {
		r.errorf("Verify: request type: %v", err)
		return
	}
	if err := checkVerifyFirst(reflect.TypeFor[Resp]()); err != nil {
		r.errorf("Verify: %v", err)
		return
	}
	if err := checkEnums(reflect.TypeFor[Req]()); err != nil {
		r.errorf("Verify: %v", err)
		return
	}
	extraIdx := extraField(reflect.TypeFor[Resp]())
	reqExtraIdx := extraField(reflect.TypeFor[Req]())
	var declared map[string]bool
	if extraIdx != nil {
		var zero Resp
		b, err := pyjson.Marshal(zero, pyjson.Pydantic)
		if err != nil {
			r.errorf("Verify: response type: %v", err)
			return
		}
		zv, _ := pyjson.Parse(b)
		declared = map[string]bool{}
		for _, m := range zv.Members {
			declared[m.Key] = true
		}
	}
	reqSchema, _ := schema.For(reflect.TypeFor[Req]())   // documentation only: a type the generator
	respSchema, _ := schema.For(reflect.TypeFor[Resp]()) // cannot describe is served, undocumented
	r.verify = &verifyRoute{reqSchema: reqSchema, respSchema: respSchema, invoke: func(ctx context.Context, b *body, normalize func(string) string) (any, error) {
		var req Req
		// Straight from the text as a tool's request; when that gives up
		// (an item to report, a duplicate key, null), from the lazy tree,
		// parsed as far as Req reads it.
		streamed := false
		if raw, lim, ok := b.text(); ok {
			if streamed = plan.DecodeJSON(raw, lim, reflect.ValueOf(&req).Elem(), lax.ModeHTTP); !streamed {
				req = *new(Req)
			}
		}
		var body pyjson.Value
		if !streamed {
			if body = b.lazy(); body.Kind == pyjson.Null {
				return nil, &ValidationError{items: []lax.ErrorItem{lax.MissingBody()}}
			}
			if items := plan.Decode(body, reflect.ValueOf(&req).Elem(), lax.ModeHTTP); len(items) > 0 {
				return nil, &ValidationError{items: items}
			}
		}
		var extra []pyjson.Member // Req's extra members as decoded, when the answer may echo them
		if extraIdx != nil && reqExtraIdx != nil {
			if ex := extraAt(reflect.ValueOf(&req).Elem(), reqExtraIdx); ex != nil {
				extra = pyjson.ExtraMembers(ex)
			}
		}
		base := PReq(&req).mustEmbedVerifyRequest()
		base.raw = b
		echoParams, echoResp := base.ResponsesCreateParams.Dump(), base.Response.Dump()
		if normalize != nil {
			normalizeCalls(base.Response.Output, normalize)
		}
		resp, err := h(ctx, req)
		if err != nil {
			return nil, err
		}
		vr := PResp(&resp).mustEmbedVerifyResponse()
		vr.ResponsesCreateParams, vr.Response = echoParams, echoResp
		if extraIdx != nil {
			rv := reflect.ValueOf(&resp).Elem()
			// An Extra the handler set (even empty: Clear) is its answer.
			if ex := extraAt(rv, extraIdx); ex == nil || !ex.IsSet() {
				ms, err := requestDump(&req, reqExtraIdx, extra, declared)
				if err != nil {
					return nil, err
				}
				if len(ms) > 0 {
					pyjson.SetExtraMembers(ownExtra(rv, extraIdx), ms)
				}
			}
		}
		return resp, nil
	}}
}

// extraField returns the index path of the Extra embedded in struct t, as
// the decoder and the encoder find it (model.Of: the shallowest, embedded
// directly, as *Extra, or in an embedded struct or pointer to one), or nil.
func extraField(t reflect.Type) []int {
	if t.Kind() != reflect.Struct {
		return nil
	}
	if s := model.Of(t); s.Extra == model.ExtraAllow {
		return s.ExtraIndex
	}
	return nil
}

// extraAt returns the Extra at index path idx in the struct v, or nil when
// a nil embedded pointer is on the way to it (no extra members). It only
// reads.
func extraAt(v reflect.Value, idx []int) *pyjson.Extra {
	for _, i := range idx {
		if v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return nil
			}
			v = v.Elem()
		}
		v = v.Field(i)
	}
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	return (*pyjson.Extra)(unsafe.Pointer(v.UnsafeAddr()))
}

// ownExtra returns the Extra at index path idx in the addressable struct v
// after making the path to it v's own: every pointer on it is replaced by a
// pointer to a shallow copy of what it pointed to (a new zero value when it
// was nil). Setting the Extra then changes nothing that a handler shares
// with v or keeps (a struct it returned through an embedded pointer, or a
// request it still reads). It goes through unexported embedded fields.
func ownExtra(v reflect.Value, idx []int) *pyjson.Extra {
	own := func(f reflect.Value) reflect.Value {
		if f.Kind() != reflect.Pointer {
			return f
		}
		f = reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem() // settable
		n := reflect.New(f.Type().Elem())
		if !f.IsNil() {
			n.Elem().Set(f.Elem())
		}
		f.Set(n)
		return n.Elem()
	}
	for _, i := range idx {
		v = own(v).Field(i)
	}
	return (*pyjson.Extra)(unsafe.Pointer(own(v).UnsafeAddr()))
}

// normalizeCalls maps the names of the function_call items of out by f, in
// place (the typed view the handler sees; the items' Dump is not changed).
func normalizeCalls(out []OutputItem, f func(string) string) {
	for i := range out {
		if out[i].Type == "function_call" {
			out[i].Name = f(out[i].Name)
		}
	}
}

// requestDump returns the members of pydantic's body.model_dump() of a
// typed verify request (req points to it) that the response does not
// declare (declared): its declared fields in declaration order with their
// decoded values (absent optional fields included), then its extra keys
// when it embeds Extra; responses_create_params and response as their
// model dumps (their MarshalJSON). The fields' values are lazy
// (pyjson.ParseLazy: spans of the written dump, never a tree), for the
// answer's encoder only. tail is the extra members of req's Extra (at
// index path idx; none when nil): they are appended as they are kept (a
// decoded container is still the body's text, written as its tree would
// be), not written out and read again; a key the request's fields wrote
// already is skipped, as the encoder does. req's Extra is emptied for the
// dump through ownExtra, so nothing the handler kept changes (its copy of
// req may share the Extra through an embedded pointer). The result is one
// allocation however many extra keys there are (500,000 small keys are
// 500,000 Members).
func requestDump[Req any](req *Req, idx []int, tail []pyjson.Member, declared map[string]bool) ([]pyjson.Member, error) {
	if len(tail) > 0 {
		pyjson.SetExtraMembers(ownExtra(reflect.ValueOf(req).Elem(), idx), nil)
	}
	b, err := pyjson.Marshal(req, pyjson.Pydantic)
	if err != nil {
		return nil, err
	}
	dump, err := pyjson.ParseLazy(b, pyjson.Limits{})
	if err != nil {
		return nil, err
	}
	n := len(tail)
	for _, m := range dump.Members {
		if !declared[m.Key] {
			n++
		}
	}
	if n == 0 {
		return nil, nil
	}
	ms := make([]pyjson.Member, 0, n)
	for _, m := range dump.Members {
		if !declared[m.Key] {
			ms = append(ms, m)
		}
	}
	for _, m := range tail {
		if _, dup := dump.Get(m.Key); !dup && !declared[m.Key] {
			ms = append(ms, m)
		}
	}
	return ms, nil
}

// seedSessionSchema is framework/host's App.SeedSessionSchema: the JSON Schema of the environment's
// /seed_session body, generated from the request type given to
// [SeedSession] as a tool's inputSchema is (a struct's fields, titles,
// "required"; a dict body's {"type":"object","additionalProperties":true}),
// or nil when the server keeps the default seed (any JSON object, NeMo's
// BaseSeedSessionRequest) or takes [NoBody]. The bytes are shared: do not
// modify them. Safe for concurrent use.
func (a *app) seedSessionSchema() json.RawMessage {
	if a.seed == nil || a.seed.noBody || a.seed.InputSchema == nil {
		return nil
	}
	if string(a.seed.InputSchema) == string(permissive) {
		return nil
	}
	return a.seed.InputSchema
}

// verifySchemas is framework/host's App.VerifySchemas: the JSON Schemas of the environment's own /verify
// request and response types (those given to [Verify]), generated as tool
// schemas are: the embedded [VerifyRequest]'s responses_create_params and
// response, or [VerifyResponse]'s responses_create_params, response and
// reward, first, then the environment's fields. responses_create_params
// and response are described from the Go types' fields only (their full
// rules are NeMo's models, [ResponseCreateParams] and [Response]), and the
// generated schema does not mark reward as required although every answer
// carries it; a host documenting /verify merges NeMo's base models in (the
// server package's /openapi.json does). Either is nil when its type cannot
// be described. The bytes are shared: do not modify them. Safe for
// concurrent use.
func (a *app) verifySchemas() (request, response json.RawMessage) {
	if a.verify == nil {
		return nil, nil
	}
	return a.verify.reqSchema, a.verify.respSchema
}
