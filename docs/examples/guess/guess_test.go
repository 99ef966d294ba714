package guessthenumber_test

import (
	"testing"

	guessthenumber "github.com/gymkit/gymkit/docs/examples/guess"
	"github.com/gymkit/gymkit/server/servertest"
)

func TestGuess(t *testing.T) {
	t.Parallel()
	ts := servertest.New(t, &guessthenumber.Game{MaxGuesses: 10}, servertest.Options{ServerType: guessthenumber.Name})
	ro := ts.Rollout()
	ro.Post("/seed_session", `{"secret":42}`)
	if res := ro.Post("/guess", `{"number":42}`); string(res.Body) != `{"answer":"correct"}` {
		t.Fatalf("guess: %d %s", res.Status, res.Body)
	}
}

func TestConfig(t *testing.T) {
	g := new(guessthenumber.Game)
	ts := servertest.New(t, g, servertest.Options{ServerType: guessthenumber.Name, Config: "max_guesses: 1"})
	ro := ts.Rollout()
	ro.Post("/seed_session", `{"secret":42}`)
	ro.Post("/guess", `{"number":1}`)
	if res := ro.Post("/guess", `{"number":42}`); res.Status != 429 {
		t.Fatalf("%d %s", res.Status, res.Body)
	}
}
