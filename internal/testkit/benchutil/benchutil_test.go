package benchutil

import (
	"encoding/json"
	"testing"
)

// TestPeak: a call that builds and returns 32 MiB shows at least that as
// its peak and its allocation; a call that builds nothing shows far less.
func TestPeak(t *testing.T) {
	const size = 32 << 20
	peak, alloc := Peak(func() (any, error) { return make([]byte, size), nil })
	if peak < size || alloc < size {
		t.Errorf("Peak of a %d-byte slice = peak %d, alloc %d; want both >= %d", size, peak, alloc, size)
	}
	if idle := PeakDuring(func() {}); idle >= size/4 {
		t.Errorf("PeakDuring of an empty function = %d bytes, want well under %d", idle, size/4)
	}
}

// TestVerifyBody: the body is a JSON object with the row's
// responses_create_params and a response of 8 calls, 8 outputs and a
// message; the tokens variant adds the token ids to every call.
func TestVerifyBody(t *testing.T) {
	plain := VerifyBody(t, false)
	if plain == nil {
		t.Skip("../shared/data/nemo-gym is not beside the module")
	}
	tokens := VerifyBody(t, true)
	for name, body := range map[string][]byte{"plain": plain, "tokens": tokens} {
		var v struct {
			ResponsesCreateParams map[string]any `json:"responses_create_params"`
			Response              struct {
				Output []struct {
					Type           string `json:"type"`
					PromptTokenIDs []int  `json:"prompt_token_ids"`
				} `json:"output"`
			} `json:"response"`
		}
		if err := json.Unmarshal(body, &v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if v.ResponsesCreateParams == nil || len(v.Response.Output) != 17 || v.Response.Output[16].Type != "message" {
			t.Errorf("%s: responses_create_params %v, %d output items; want the row's params and 17 items ending in a message",
				name, v.ResponsesCreateParams != nil, len(v.Response.Output))
			continue
		}
		if got, want := len(v.Response.Output[0].PromptTokenIDs), map[string]int{"plain": 0, "tokens": 16000}[name]; got != want {
			t.Errorf("%s: first call has %d prompt_token_ids, want %d", name, got, want)
		}
	}
}
