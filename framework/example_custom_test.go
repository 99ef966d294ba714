package framework_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"regexp"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/framework/host"
)

// Amount is a money amount kept exactly as decimal text: it accepts a JSON
// string or number of the form 12 or 12.50, as a Python server declaring
// the field as a constrained str or a Decimal would.
type Amount string

var amountText = regexp.MustCompile(`^-?[0-9]+(\.[0-9]{1,2})?$`)

// DecodeField implements framework.CustomField.
func (a *Amount) DecodeField(v framework.Value) error {
	if v.Kind != framework.KindString && v.Kind != framework.KindNumber {
		return &framework.FieldError{Type: "decimal_type", Msg: "Decimal input should be an integer, float, string or Decimal object"}
	}
	if !amountText.MatchString(v.Str) {
		return fmt.Errorf("%q is not an amount with at most 2 decimals", v.Str)
	}
	*a = Amount(v.Str)
	return nil
}

// JSONSchemaBytes implements framework.CustomField.
func (*Amount) JSONSchemaBytes() ([]byte, error) {
	return []byte(`{"anyOf":[{"type":"number"},{"type":"string","pattern":"^-?[0-9]+(\\.[0-9]{1,2})?$"}]}`), nil
}

type PayRequest struct {
	To     string `json:"to" required:"true"`
	Amount Amount `json:"amount" required:"true"`
}

type PayResponse struct {
	Paid string `json:"paid"`
}

type bank struct{ framework.Base }

func (s *bank) Routes(r *framework.Router) {
	framework.Post(r, "/pay", func(_ context.Context, req PayRequest) (PayResponse, error) {
		return PayResponse{Paid: string(req.Amount) + " to " + req.To}, nil
	})
	framework.Verify(r, func(context.Context, framework.VerifyRequest) (framework.VerifyResponse, error) {
		return framework.VerifyResponse{Reward: 1}, nil
	})
}

// A field type of your own validates itself and gives its schema: the
// tool's inputSchema (what tools/list publishes) shows it, a good value
// reaches the tool, a bad one is a 422 located at the field.
func ExampleCustomField() {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	app, err := host.Build(context.Background(), new(bank), host.Options{Logger: quiet})
	if err != nil {
		panic(err)
	}
	var schema map[string]any
	_ = json.Unmarshal(app.Tools()[0].InputSchema, &schema)
	amount, _ := json.Marshal(schema["properties"].(map[string]any)["amount"])
	fmt.Println("inputSchema amount:", string(amount))
	post(app.Handler(), "/pay", `{"to":"bob","amount":"12.50"}`)
	post(app.Handler(), "/pay", `{"to":"bob","amount":"12.505"}`)
	post(app.Handler(), "/pay", `{"to":"bob","amount":[1]}`)
	// The MCP door (tools/call) runs the same decoder.
	_, err = app.Tools()[0].Call(context.Background(), json.RawMessage(`{"to":"bob","amount":"ten"}`), framework.DoorMCP)
	fmt.Println(framework.StatusOf(err).MCPText("pay"))
	// Output:
	// inputSchema amount: {"anyOf":[{"type":"number"},{"pattern":"^-?[0-9]+(\\.[0-9]{1,2})?$","type":"string"}],"title":"Amount"}
	// 200 {"paid":"12.50 to bob"}
	// 422 {"detail":[{"type":"value_error","loc":["body","amount"],"msg":"Value error, \"12.505\" is not an amount with at most 2 decimals","input":"12.505","ctx":{"error":{}}}]}
	// 422 {"detail":[{"type":"decimal_type","loc":["body","amount"],"msg":"Decimal input should be an integer, float, string or Decimal object","input":[1]}]}
	// HTTP 422 from POST /pay: [{"type": "value_error", "loc": ["amount"], "msg": "Value error, \"ten\" is not an amount with at most 2 decimals", "input": "ten", "ctx": {"error": {}}, "url": "https://errors.pydantic.dev/2.13/v/value_error"}]
}
