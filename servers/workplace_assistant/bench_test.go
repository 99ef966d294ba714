package workplace_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/gymkit/gymkit/server/servertest"
)

// rolloutCalls are ten typical calls of one rollout: reads of every toolkit
// and writes to emails, calendar and CRM.
var rolloutCalls = []call{
	c("company_directory_find_email_address", `{"name":"carlos"}`),
	c("email_search_emails", `{"query":"report generation"}`),
	c("email_get_email_information_by_id", `{"email_id":"00000057","field":"subject"}`),
	c("email_reply_email", `{"email_id":"00000057","body":"Thanks for the update - I will get back to you tomorrow."}`),
	c("calendar_search_events", `{"query":"sync up","time_min":"2023-12-01"}`),
	c("calendar_create_event", `{"event_name":"Sync","participant_email":"carlos.rodriguez@atlas.com","event_start":"2023-12-04 10:00:00","duration":"30"}`),
	c("analytics_total_visits_count", `{"time_min":"2023-11-01","time_max":"2023-11-30"}`),
	c("project_management_search_tasks", `{"task_name":"carousel"}`),
	c("customer_relationship_manager_search_customers", `{"customer_name":"casey"}`),
	c("customer_relationship_manager_update_customer", `{"customer_id":"00000095","field":"status","new_value":"Lost"}`),
}

var rolloutTruth = []call{rolloutCalls[3], rolloutCalls[5], rolloutCalls[9]}

// BenchmarkRollout is one whole rollout over HTTP (loopback, real cookies):
// seed, the ten calls, verify (which replays both call lists on two fresh
// worlds). The trivial-call sub-benchmark is the baseline of the same run:
// one POST answering {"output":"Name not provided."}.
func BenchmarkRollout(b *testing.B) {
	ts, _ := newServer(b)
	verify := verifyBody(rolloutCalls, rolloutTruth)
	b.Run("trivial_call", func(b *testing.B) {
		ro := ts.Rollout()
		ro.Post("/seed_session", `{}`)
		b.ReportAllocs()
		for b.Loop() {
			if res := ro.Post("/company_directory_find_email_address", `{}`); res.Status != 200 {
				b.Fatal(res.Status)
			}
		}
	})
	b.Run("seed_10_calls_verify", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			ro := ts.Rollout()
			ro.Post("/seed_session", `{}`)
			for _, cl := range rolloutCalls {
				if res := ro.Post("/"+cl.name, cl.args); res.Status != 200 {
					b.Fatal(res.Status)
				}
			}
			res := ro.Post("/verify", verify)
			if res.Status != 200 || string(res.Body[len(res.Body)-13:]) != `"reward":1.0}` {
				b.Fatalf("verify: %d %s", res.Status, res.Body)
			}
		}
	})
	b.Run("verify_only", func(b *testing.B) {
		ro := ts.Rollout()
		ro.Post("/seed_session", `{}`)
		b.ReportAllocs()
		for b.Loop() {
			if res := ro.Post("/verify", verify); res.Status != 200 {
				b.Fatal(res.Status)
			}
		}
	})
}

// BenchmarkLiveSessionMemory measures the heap held per live rollout:
// sessions seeded and left open (worlds kept), after the given calls, over
// HTTP (so the session manager's own entry and the seed mark are included).
// The metric is the growth of the live heap (after GC) over a batch of
// sessions, divided by their number; est-B/world is the world store's
// estimate of the same worlds (world.bytes), what max_world_bytes counts.
// A seed with no call keeps no world.
func BenchmarkLiveSessionMemory(b *testing.B) {
	const sessions = 500
	cases := []struct {
		name  string
		calls []call
	}{
		{"seeded_only", nil},
		{"after_10_calls", rolloutCalls},
		{"all_tables_written", []call{
			c("email_send_email", `{"recipient":"a@b.co","subject":"s","body":"b"}`),
			c("calendar_delete_event", `{"event_id":"00000013"}`),
			c("analytics_create_plot", `{"time_min":"2023-11-01","time_max":"2023-11-30","value_to_plot":"total_visits","plot_type":"bar"}`),
			c("analytics_get_average_session_duration", `{}`),
			c("project_management_update_task", `{"task_id":"00000149","field":"list_name","new_value":"Completed"}`),
			c("customer_relationship_manager_add_customer", `{"customer_name":"A","assigned_to_email":"a@b.co","status":"Lead"}`),
		}},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				ts, s := newServer(b)
				rollouts := make([]*servertest.Rollout, 0, 2*sessions)
				open := func() {
					for range sessions {
						ro := ts.Rollout()
						ro.Post("/seed_session", `{}`)
						for _, cl := range tc.calls {
							ro.Post("/"+cl.name, cl.args)
						}
						rollouts = append(rollouts, ro)
					}
				}
				// The first batch warms everything up (and lets garbage from
				// earlier runs go); the second batch is the one measured.
				open()
				before := heapInUse()
				est := s.WorldBytes()
				open()
				after := heapInUse()
				if want := map[bool]int{true: 0, false: 2 * sessions}[tc.calls == nil]; s.LiveWorlds() != want {
					b.Fatalf("%d live worlds, want %d", s.LiveWorlds(), want)
				}
				b.ReportMetric(float64(after-before)/sessions, "B/session")
				// The store's own estimate (max_world_bytes counts it).
				b.ReportMetric(float64(s.WorldBytes()-est)/sessions, "est-B/world")
				runtime.KeepAlive(rollouts)
				ts.Close()
			}
		})
	}
}

func heapInUse() int64 {
	var m runtime.MemStats
	time.Sleep(200 * time.Millisecond)
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
