package framework_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/server/servertest"
)

type extraToolReq struct {
	Name string `json:"name"`
	framework.Extra
}

// extraToolEnv's tool answers what its request's Extra holds, read through
// every accessor: the keys, Has, each value by Get, and All.
type extraToolEnv struct{ framework.Base }

func (s *extraToolEnv) Routes(r *framework.Router) {
	framework.Post(r, "/extra", func(_ context.Context, req extraToolReq) (framework.Value, error) {
		keys := make([]framework.Value, 0, req.Len())
		for _, k := range req.Keys() {
			keys = append(keys, framework.StringValue(k))
		}
		var got, all []framework.Member
		for _, k := range req.Keys() {
			v, _ := req.Get(k)
			got = append(got, framework.Member{Key: k, Value: v})
		}
		for k, v := range req.All() {
			all = append(all, framework.Member{Key: k, Value: v})
		}
		// The trees are walked through their fields, as environments do.
		arr, _ := req.Get("arr")
		nested := "absent"
		if len(arr.Items) > 2 {
			if k, ok := arr.Items[2].Get("k"); ok {
				nested = k.Kind.String()
			}
		}
		return framework.ObjectValue(
			framework.Member{Key: "arr_items", Value: framework.NumberValue(strconv.Itoa(len(arr.Items)))},
			framework.Member{Key: "nested_k", Value: framework.StringValue(nested)},
			framework.Member{Key: "keys", Value: framework.ArrayValue(keys...)},
			framework.Member{Key: "has_arr", Value: framework.BoolValue(req.Has("arr"))},
			framework.Member{Key: "got", Value: framework.ObjectValue(got...)},
			framework.Member{Key: "all", Value: framework.ObjectValue(all...)},
		), nil
	})
	framework.Verify(r, func(context.Context, framework.VerifyRequest) (framework.VerifyResponse, error) {
		return framework.VerifyResponse{}, nil
	})
}

// TestExtraReadsOnBothDoors: a tool reads its request's extra keys as full
// trees (Get, All) whichever decoder filled the Extra: the one reading the
// body's text (which keeps a container as its text) or the tree path (a
// duplicate key makes the first give up), over HTTP and over MCP. The
// values are Python's: duplicate keys collapsed to the last value at the
// first position, number literals as sent.
func TestExtraReadsOnBothDoors(t *testing.T) {
	t.Parallel()
	ts := servertest.New(t, &extraToolEnv{}, servertest.Options{MCP: true})
	ro := ts.Rollout()
	if r := ro.Post("/seed_session", `{}`); r.Status != 200 {
		t.Fatalf("seed: %d %s", r.Status, r.Body)
	}
	const arr = `[1,2.50,{"k":1,"k":[true,null]},"\u00e9"]`
	const want = `"got":{"arr":[1,2.5,{"k":[true,null]},"é"],"s":"x","o":{"z":[]}}`
	for _, c := range []struct{ label, body, want string }{
		{"text path", `{"name":"a","arr":` + arr + `,"s":"x","o":{"z":[]}}`, `{"arr_items":4,"nested_k":"array","keys":["arr","s","o"],"has_arr":true,` + want},
		{"tree path", `{"name":"a","arr":` + arr + `,"s":"y","o":{"z":[]},"s":"x"}`, `{"arr_items":4,"nested_k":"array","keys":["arr","s","o"],"has_arr":true,` + want},
		{"no extra", `{"name":"a"}`, `{"arr_items":0,"nested_k":"absent","keys":[],"has_arr":false,"got":{}`},
	} {
		r := ro.Post("/extra", c.body)
		if r.Status != 200 || !strings.Contains(string(r.Body), c.want) {
			t.Errorf("HTTP %s: %d %s\nwant it to hold %s", c.label, r.Status, r.Body, c.want)
		}
		body := string(r.Body)
		if i, j := strings.Index(body, `"got":`), strings.Index(body, `,"all":`); i < 0 || j < 0 || body[i+6:j] != body[j+7:len(body)-1] {
			t.Errorf("HTTP %s: All differs from Get: %s", c.label, r.Body)
		}
		res := ro.MCP().CallTool("extra", c.body)
		if res.IsError || res.Text != string(r.Body) {
			t.Errorf("MCP %s: isError %v %s\nwant the HTTP answer %s", c.label, res.IsError, res.Text, r.Body)
		}
	}
}
