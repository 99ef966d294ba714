package breaktest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/session"
)

// Inner is a nested model.
type Inner struct {
	A int    `json:"a" required:"true"`
	B string `json:"b"`
}

// Embedded is flattened into Kinds.
type Embedded struct {
	E1 int `json:"e1"`
}

// Kinds has a field of every Go kind the decoder supports.
type Kinds struct {
	Embedded
	I8   int8                       `json:"i8"`
	I16  int16                      `json:"i16"`
	I32  int32                      `json:"i32"`
	I64  int64                      `json:"i64"`
	I    int                        `json:"i"`
	U8   uint8                      `json:"u8"`
	U16  uint16                     `json:"u16"`
	U32  uint32                     `json:"u32"`
	U64  uint64                     `json:"u64"`
	U    uint                       `json:"u"`
	F32  float32                    `json:"f32"`
	F64  float64                    `json:"f64"`
	B    bool                       `json:"b"`
	S    string                     `json:"s"`
	PP   **int                      `json:"pp"`
	PS   *Inner                     `json:"ps"`
	SS   []Inner                    `json:"ss"`
	MS   map[string][]int           `json:"ms"`
	Raw  json.RawMessage            `json:"raw"`
	Val  framework.Value            `json:"val"`
	Obj  framework.Object           `json:"obj"`
	PObj *framework.Object          `json:"pobj"`
	Any  any                        `json:"any"`
	MM   map[string]map[string]bool `json:"mm"`
	Enum *string                    `json:"enum" enum:"x,y"` // a pointer: absent is nil (an optional enum must be, Build refuses "")
	Def  int                        `json:"def" default:"7"`
}

type Empty struct{}

type KeyReq struct {
	Key string `json:"key" required:"true"`
	N   int    `json:"n"`
}

type breakEnv struct {
	framework.Base
	dispatch    bool
	slowDone    atomic.Int64 // slow handlers that saw ctx.Done
	slowStarted atomic.Int64 // slow handlers that started
}

type cyc struct {
	Next *cyc `json:"next"`
}

type withFunc struct {
	F func() `json:"f"`
}

type nanResp struct {
	F   float64   `json:"f"`
	Fs  []float64 `json:"fs"`
	F32 float32   `json:"f32"`
	Inf float64   `json:"inf"`
}

type myErr struct{}

func (myErr) Error() string { return "my error" }

func (s *breakEnv) Routes(r *framework.Router) {
	framework.Post(r, "/kinds", func(_ context.Context, k Kinds) (Kinds, error) { return k, nil })
	framework.Post(r, "/empty", func(_ context.Context, k Empty) (Empty, error) { return k, nil })
	framework.Post(r, "/value", func(_ context.Context, v framework.Value) (framework.Value, error) { return v, nil })
	framework.Post(r, "/raw", func(_ context.Context, v json.RawMessage) (json.RawMessage, error) { return v, nil })
	framework.Post(r, "/mapany", func(_ context.Context, v map[string]any) (map[string]any, error) { return v, nil })
	framework.Post(r, "/nobody", func(context.Context, framework.NoBody) (string, error) { return "ok", nil })

	framework.Post(r, "/panic_nil", func(context.Context, framework.NoBody) (struct{}, error) { panic(nil) })
	framework.Post(r, "/panic_err", func(context.Context, framework.NoBody) (struct{}, error) {
		panic(fmt.Errorf("wrapped: %w", framework.Errorf(409, "conflict")))
	})
	framework.Post(r, "/panic_int", func(context.Context, framework.NoBody) (struct{}, error) { panic(42) })
	framework.Post(r, "/panic_map", func(context.Context, framework.NoBody) (struct{}, error) {
		panic(map[string]any{"a": 1})
	})
	framework.Post(r, "/goexit", func(context.Context, framework.NoBody) (struct{}, error) {
		runtime.Goexit()
		return struct{}{}, nil
	})
	framework.Post(r, "/nil_map", func(context.Context, framework.NoBody) (map[string]int, error) { return nil, nil })
	framework.Post(r, "/nil_slice", func(context.Context, framework.NoBody) ([]int, error) { return nil, nil })
	framework.Post(r, "/nil_any", func(context.Context, framework.NoBody) (any, error) { return nil, nil })
	framework.Post(r, "/nil_ptr", func(context.Context, framework.NoBody) (any, error) { return (*Inner)(nil), nil })
	framework.Post(r, "/huge", func(_ context.Context, req KeyReq) ([]string, error) {
		out := make([]string, req.N)
		for i := range out {
			out[i] = strings.Repeat("x", 1000)
		}
		return out, nil
	})
	framework.Post(r, "/nan", func(context.Context, framework.NoBody) (nanResp, error) {
		return nanResp{F: math.NaN(), Fs: []float64{math.Inf(1), math.Inf(-1), 1}, F32: float32(math.NaN()), Inf: math.Inf(1)}, nil
	})
	framework.Post(r, "/chan", func(context.Context, framework.NoBody) (chan int, error) { return make(chan int), nil })
	framework.Post(r, "/func", func(context.Context, framework.NoBody) (withFunc, error) { return withFunc{F: func() {}}, nil })
	framework.Post(r, "/cycle", func(context.Context, framework.NoBody) (any, error) {
		c := &cyc{}
		c.Next = c
		return c, nil
	})
	framework.Post(r, "/any_cycle", func(context.Context, framework.NoBody) (map[string]any, error) {
		m := map[string]any{}
		m["self"] = m
		return m, nil
	})
	framework.Post(r, "/wrapped_errorf", func(context.Context, framework.NoBody) (struct{}, error) {
		return struct{}{}, fmt.Errorf("outer: %w", framework.Errorf(404, "Function not found"))
	})
	framework.Post(r, "/joined", func(context.Context, framework.NoBody) (struct{}, error) {
		return struct{}{}, errors.Join(errors.New("plain"), framework.Errorf(403, "forbidden"))
	})
	framework.Post(r, "/newerror_map", func(context.Context, framework.NoBody) (struct{}, error) {
		return struct{}{}, framework.NewError(400, map[string]any{"b": 1, "a": []any{"x", 1.5}})
	})
	framework.Post(r, "/newerror_nan", func(context.Context, framework.NoBody) (struct{}, error) {
		return struct{}{}, framework.NewError(400, map[string]any{"v": math.NaN()})
	})
	framework.Post(r, "/newerror_chan", func(context.Context, framework.NoBody) (struct{}, error) {
		return struct{}{}, framework.NewError(400, make(chan int))
	})
	framework.Post(r, "/errorf_204", func(context.Context, framework.NoBody) (struct{}, error) {
		return struct{}{}, framework.Errorf(204, "no content")
	})
	framework.Post(r, "/errorf_304", func(context.Context, framework.NoBody) (struct{}, error) {
		return struct{}{}, framework.Errorf(304, "not modified")
	})
	framework.Post(r, "/errorf_0", func(context.Context, framework.NoBody) (struct{}, error) {
		return struct{}{}, &framework.Error{Detail: "zero"}
	})
	framework.Post(r, "/errorf_999", func(context.Context, framework.NoBody) (struct{}, error) {
		return struct{}{}, framework.Errorf(999, "weird")
	})
	framework.Post(r, "/errorf_99", func(context.Context, framework.NoBody) (struct{}, error) {
		return struct{}{}, framework.Errorf(99, "tiny")
	})
	framework.Post(r, "/errorf_200", func(context.Context, framework.NoBody) (struct{}, error) {
		return struct{}{}, framework.Errorf(200, "ok error")
	})
	framework.Post(r, "/typed_nil_err", func(context.Context, framework.NoBody) (struct{}, error) {
		var e *myPtrErr
		return struct{}{}, e
	})
	framework.Post(r, "/nil_error_ptr", func(context.Context, framework.NoBody) (struct{}, error) {
		var e *framework.Error
		return struct{}{}, e
	})
	// slow waits 10 s or until its call's context is done, counting both
	// the calls started and those that saw their context end.
	slow := func(ctx context.Context) (struct{}, error) {
		s.slowStarted.Add(1)
		select {
		case <-ctx.Done():
			s.slowDone.Add(1)
			return struct{}{}, ctx.Err()
		case <-time.After(10 * time.Second):
			return struct{}{}, nil
		}
	}
	framework.Post(r, "/slow", func(ctx context.Context, _ framework.NoBody) (struct{}, error) { return slow(ctx) })
	framework.Post(r, "/slow_body", func(ctx context.Context, _ Empty) (struct{}, error) { return slow(ctx) })
	framework.Post(r, "/string_result", func(context.Context, framework.NoBody) (string, error) {
		return "<b>&\u2028\x00\x7f\xff", nil
	})
	// Sessions.
	framework.Post(r, "/incr", func(ctx context.Context, req KeyReq) (map[string]any, error) {
		var n int
		err := session.Update(ctx, req.Key, func(v *int) error { *v++; n = *v; return nil })
		return map[string]any{"id": session.ID(ctx), "n": n}, err
	})
	framework.Post(r, "/get", func(ctx context.Context, req KeyReq) (map[string]any, error) {
		v, ok, err := session.Get[int](ctx, req.Key)
		return map[string]any{"id": session.ID(ctx), "n": v, "ok": ok}, err
	})
	framework.Post(r, "/id", func(ctx context.Context, _ framework.NoBody) (string, error) {
		return session.ID(ctx), nil
	})
	framework.Post(r, "/upd_nan", func(ctx context.Context, _ framework.NoBody) (struct{}, error) {
		return struct{}{}, session.Update(ctx, "nan", func(v *float64) error { *v = math.NaN(); return nil })
	})
	framework.Post(r, "/upd_type_clash", func(ctx context.Context, _ framework.NoBody) (struct{}, error) {
		if err := session.Update(ctx, "clash", func(v *string) error { *v = "text"; return nil }); err != nil {
			return struct{}{}, err
		}
		return struct{}{}, session.Update(ctx, "clash", func(v *int) error { *v++; return nil })
	})
	framework.Post(r, "/rollout_id", func(ctx context.Context, _ framework.NoBody) (string, error) {
		return framework.RolloutID(ctx), nil
	})
	if s.dispatch {
		framework.Dispatch(r, func(ctx context.Context, tool string, args json.RawMessage) (any, error) {
			return map[string]any{"tool": tool, "args": args}, nil
		})
	}
	framework.Verify(r, s.verify)
}

type myPtrErr struct{}

func (*myPtrErr) Error() string { return "typed nil" }

type VReq struct {
	framework.VerifyRequest
	Mode string `json:"mode"`
	Z    int    `json:"z"`
	A    *int   `json:"a"`
}

type VResp struct {
	framework.VerifyResponse
	Note string `json:"note"`
}

func (s *breakEnv) verify(_ context.Context, req VReq) (VResp, error) {
	switch req.Mode {
	case "panic":
		panic("verify panic")
	case "error":
		return VResp{}, framework.Errorf(503, "judge down")
	case "plain":
		return VResp{}, errors.New("boom")
	case "nan":
		return VResp{VerifyResponse: framework.VerifyResponse{Reward: math.NaN()}}, nil
	}
	return VResp{VerifyResponse: framework.VerifyResponse{Reward: 1}, Note: "n"}, nil
}
