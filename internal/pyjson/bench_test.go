package pyjson

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// benchBody builds a NeMo-Gym-like /verify body (responses_create_params
// with messages and tools, a response with output items) of about size
// bytes: mostly ASCII text, some escapes and non-ASCII, ints and floats.
func benchBody(size int) []byte {
	var b strings.Builder
	b.WriteString(`{"responses_create_params":{"input":[`)
	turn := 0
	for b.Len() < size*2/3 {
		if turn > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"role":"%s","content":"Turn %d: what is the weather in Paris today? R\u00e9ponse attendue en \u00b0C.\nLine two\twith a tab and a \"quote\".","type":"message"}`,
			[]string{"user", "assistant"}[turn%2], turn)
		turn++
	}
	b.WriteString(`],"tools":[{"type":"function","name":"get_weather","description":"Get the weather for a city.","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false},"strict":true}],"temperature":0.7,"max_output_tokens":4096,"parallel_tool_calls":false},`)
	b.WriteString(`"response":{"id":"resp_0123456789","created_at":1735689600.25,"model":"gpt-x","object":"response","output":[`)
	item := 0
	for b.Len() < size-200 {
		if item > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"msg_%d","type":"message","role":"assistant","status":"completed","content":[{"type":"output_text","text":"The temperature is %d.5 degrees, humidity %d%%. \u2600","annotations":[]}],"score":%g}`,
			item, item%40, item%100, float64(item)/7)
		item++
	}
	b.WriteString(`],"usage":{"input_tokens":1234,"output_tokens":56,"total_tokens":1290}},"reward":1.0,"expected_city":"Paris"}`)
	return []byte(b.String())
}

var (
	body2K  = benchBody(2 << 10)
	body80K = benchBody(80 << 10)
)

func benchParse(b *testing.B, body []byte) {
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(body); err != nil {
			b.Fatal(err)
		}
	}
}

func benchStdUnmarshal(b *testing.B, body []byte) {
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		var x any
		if err := json.Unmarshal(body, &x); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParse2K(b *testing.B)            { benchParse(b, body2K) }
func BenchmarkStdUnmarshalAny2K(b *testing.B)  { benchStdUnmarshal(b, body2K) }
func BenchmarkParse80K(b *testing.B)           { benchParse(b, body80K) }
func BenchmarkStdUnmarshalAny80K(b *testing.B) { benchStdUnmarshal(b, body80K) }
func BenchmarkValid80K(b *testing.B)           { benchValid(b, body80K) }
func BenchmarkStdValid80K(b *testing.B)        { benchStdValid(b, body80K) }
func benchValid(b *testing.B, body []byte)     { benchLoop(b, body, func() bool { return Valid(body) }) }
func benchStdValid(b *testing.B, body []byte) {
	benchLoop(b, body, func() bool { return json.Valid(body) })
}
func benchLoop(b *testing.B, body []byte, f func() bool) {
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if !f() {
			b.Fatal("invalid")
		}
	}
}

// A typical typed response.
type benchResponse struct {
	Reward        float64           `json:"reward"`
	ExpectedCity  string            `json:"expected_city"`
	Correct       bool              `json:"correct"`
	ToolCalls     int               `json:"tool_calls"`
	Scores        []float64         `json:"scores"`
	Notes         *string           `json:"notes,omitempty"`
	Metadata      map[string]string `json:"metadata"`
	Nested        benchNested       `json:"nested"`
	Items         []benchNested     `json:"items"`
	ResponseInput string            `json:"response_input"`
}

type benchNested struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Count int64   `json:"count"`
}

var benchResp = func() benchResponse {
	r := benchResponse{
		Reward: 1, ExpectedCity: "Paris", Correct: true, ToolCalls: 3,
		Scores:        []float64{0.5, 0.25, 1, 0.125, 3.75},
		Metadata:      map[string]string{"b": "two", "a": "one", "c": "three"},
		Nested:        benchNested{Name: "n", Value: 2.5, Count: 7},
		ResponseInput: strings.Repeat("The temperature is 21 degrees in Paris. ", 10),
	}
	for i := range 10 {
		r.Items = append(r.Items, benchNested{Name: fmt.Sprintf("item-%d", i), Value: float64(i) / 3, Count: int64(i)})
	}
	return r
}()

func BenchmarkMarshalStruct(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Marshal(&benchResp, Pydantic); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStdMarshalStruct(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(&benchResp); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMarshalValue80K(b *testing.B) {
	v, err := Parse(body80K)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body80K)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Marshal(v, Pydantic); err != nil {
			b.Fatal(err)
		}
	}
}

// encoding/json writing the equivalent tree (maps, so sorted keys).
func BenchmarkStdMarshalAny80K(b *testing.B) {
	var x any
	if err := json.Unmarshal(body80K, &x); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body80K)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(x); err != nil {
			b.Fatal(err)
		}
	}
}
