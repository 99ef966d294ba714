// Package guessthenumber is the environment of docs/environments.md, kept
// here so that the guide's code is compiled and tested (see TestGuideIsThisCode).
package guessthenumber

import (
	"context"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/session"
)

// Name is the server type: the key under resources_servers in the YAML.
const Name = "guess_the_number"

func init() { framework.Register(Name, func() framework.Server { return new(Game) }) }

// Game is the server. Its exported fields with koanf tags are its config keys.
type Game struct {
	framework.Base
	MaxGuesses int `koanf:"max_guesses"`
}

type SeedRequest struct {
	Secret int `json:"secret" required:"true"` // a field of the dataset row
}

type GuessRequest struct {
	Number int `json:"number" required:"true"`
}

type GuessResponse struct {
	Answer string `json:"answer"` // "higher", "lower" or "correct"
}

type VerifyRequest struct {
	framework.VerifyRequest // responses_create_params and response, validated
}

type VerifyResponse struct {
	framework.VerifyResponse     // responses_create_params, response, reward
	Guesses                  int `json:"guesses"`
}

// state is one rollout's state, kept by the session package (exported
// fields only: it is stored as JSON).
type state struct {
	Secret  int  `json:"secret"`
	Guesses int  `json:"guesses"`
	Solved  bool `json:"solved"`
}

func (g *Game) Routes(r *framework.Router) {
	framework.Post(r, "/guess", g.guess, framework.Description("Guess the secret number."))
	framework.SeedSession(r, g.seed)
	framework.Verify(r, g.verify)
}

func (g *Game) seed(ctx context.Context, req SeedRequest) (struct{}, error) {
	return struct{}{}, session.Update(ctx, "game", func(st *state) error {
		*st = state{Secret: req.Secret}
		return nil
	})
}

func (g *Game) guess(ctx context.Context, req GuessRequest) (GuessResponse, error) {
	var answer string
	err := session.Update(ctx, "game", func(st *state) error {
		if g.MaxGuesses > 0 && st.Guesses >= g.MaxGuesses {
			return framework.Errorf(429, "no guesses left")
		}
		st.Guesses++
		switch {
		case req.Number < st.Secret:
			answer = "higher"
		case req.Number > st.Secret:
			answer = "lower"
		default:
			answer, st.Solved = "correct", true
		}
		return nil
	})
	return GuessResponse{Answer: answer}, err
}

func (g *Game) verify(ctx context.Context, req VerifyRequest) (VerifyResponse, error) {
	st, _, err := session.Get[state](ctx, "game")
	if err != nil {
		return VerifyResponse{}, err
	}
	resp := VerifyResponse{Guesses: st.Guesses}
	if st.Solved {
		resp.Reward = 1
	}
	return resp, nil
}
