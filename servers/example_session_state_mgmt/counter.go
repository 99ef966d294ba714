// Package examplesessionstatemgmt is NeMo Gym's example_session_state_mgmt
// resources server (the stateful counter) in gymkit: a per-rollout counter
// seeded with initial_count, incremented by a tool, read by another, and
// verified against expected_count. Behaviour:
// ../shared/spec/small-servers.md section 2.
//
// Counts are framework.Int, Python's unbounded int: any increment Python
// accepts is accepted and summed exactly, and nothing wraps at int64.
package examplesessionstatemgmt

import (
	"context"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/session"
)

// Name is the server type name under resources_servers.
const Name = "example_session_state_mgmt"

func init() { framework.Register(Name, func() framework.Server { return new(Counter) }) }

// Counter is the server. It has no config keys of its own.
type Counter struct {
	framework.Base
}

const stateKey = "counter"

// counter is one rollout's state; Set distinguishes "absent" from 0.
type counter struct {
	Count framework.Int `json:"count"`
	Set   bool          `json:"set"`
}

// SeedRequest is the seed body: initial_count is required; other keys (the
// dataset row) are ignored.
type SeedRequest struct {
	InitialCount framework.Int `json:"initial_count" required:"true"`
}

// IncrementCounterRequest is increment_counter's input; count may be negative.
type IncrementCounterRequest struct {
	Count framework.Int `json:"count" required:"true"`
}

// IncrementResponse is increment_counter's result: {"success":true}.
type IncrementResponse struct {
	Success bool `json:"success"`
}

// CountResponse is get_counter_value's result: {"count":n}.
type CountResponse struct {
	Count framework.Int `json:"count"`
}

// VerifyRequest adds the expected count (not echoed in the answer).
type VerifyRequest struct {
	framework.VerifyRequest
	// ExpectedCount is the count the rollout should have reached (required):
	// the reward is 1.0 when the session's counter was seeded or used and
	// its count equals ExpectedCount, else 0.0.
	ExpectedCount framework.Int `json:"expected_count" required:"true"`
}

// VerifyResponse is {"responses_create_params","response","reward"}.
type VerifyResponse struct {
	framework.VerifyResponse
}

// Routes declares increment_counter, get_counter_value, the seed and verify.
func (s *Counter) Routes(r *framework.Router) {
	framework.Post(r, "/increment_counter", s.increment)
	framework.Post(r, "/get_counter_value", s.get)
	framework.SeedSession(r, s.seed)
	framework.Verify(r, s.verify)
}

// seed sets the counter only if this session has none yet: re-seeding never
// resets it.
func (s *Counter) seed(ctx context.Context, req SeedRequest) (struct{}, error) {
	return struct{}{}, session.Update(ctx, stateKey, func(c *counter) error {
		if !c.Set {
			*c = counter{Count: req.InitialCount, Set: true}
		}
		return nil
	})
}

func (s *Counter) increment(ctx context.Context, req IncrementCounterRequest) (IncrementResponse, error) {
	err := session.Update(ctx, stateKey, func(c *counter) error {
		c.Count = c.Count.Add(req.Count)
		c.Set = true
		return nil
	})
	return IncrementResponse{Success: err == nil}, err
}

// get reads the counter, creating it at 0; it never reads the body.
func (s *Counter) get(ctx context.Context, _ framework.NoBody) (CountResponse, error) {
	var n framework.Int
	err := session.Update(ctx, stateKey, func(c *counter) error {
		c.Set = true
		n = c.Count
		return nil
	})
	return CountResponse{Count: n}, err
}

func (s *Counter) verify(ctx context.Context, req VerifyRequest) (VerifyResponse, error) {
	c, ok, err := session.Get[counter](ctx, stateKey)
	if err != nil {
		return VerifyResponse{}, err
	}
	var resp VerifyResponse
	if ok && c.Set && c.Count.Equal(req.ExpectedCount) {
		resp.Reward = 1.0
	}
	return resp, nil
}
