package workplace_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestEmailSortVectors is spec section 4.2.1's table: n emails sent to
// a@b.co (subjects S0.., ids 500..), then searched. Above 16 matches the
// order of equal sent_datetime values is numpy's introsort, not stable.
func TestEmailSortVectors(t *testing.T) {
	t.Parallel()
	ts, _ := newServer(t)
	seq := func(from, to int) []string {
		var s []string
		for i := from; i <= to; i++ {
			s = append(s, fmt.Sprint(i))
		}
		return s
	}
	split := func(s string) []string { return strings.Split(s, ", ") }
	cases := []struct {
		n        int
		query    string
		pageSize int
		want     []string
	}{
		{2, "", 3, split("501, 500, 00000436")},
		{3, "", 4, split("502, 501, 500, 00000436")},
		{17, "", 18, split("516, 508, 500, 501, 503, 504, 505, 506, 507, 502, 509, 511, 512, 513, 510, 514, 515, 00000436")},
		{20, "", 21, split("519, 509, 500, 501, 502, 503, 504, 506, 507, 508, 505, 510, 515, 511, 517, 516, 518, 514, 513, 512, 00000436")},
		{1, "a@b.co", 20, seq(500, 500)},
		{5, "a@b.co", 20, seq(500, 504)},
		{16, "a@b.co", 20, seq(500, 515)},
		{17, "a@b.co", 20, split("500, 509, 515, 514, 513, 512, 511, 510, 508, 501, 507, 506, 505, 504, 503, 502, 516")},
		{20, "a@b.co", 20, split("500, 501, 518, 517, 516, 515, 514, 513, 512, 511, 510, 509, 508, 507, 506, 505, 504, 503, 502, 519")},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%d emails, query %q", c.n, c.query), func(t *testing.T) {
			t.Parallel()
			ro := seeded(t, ts)
			for i := range c.n {
				body := fmt.Sprintf(`{"recipient":"a@b.co","subject":"S%d","body":"b"}`, i)
				if res := ro.Post("/email_send_email", body); string(res.Body) != `{"output":"Email sent successfully."}` {
					t.Fatalf("send %d: %s", i, res.Body)
				}
			}
			res := ro.Post("/email_search_emails", fmt.Sprintf(`{"query":%q,"page_size":%d}`, c.query, c.pageSize))
			var out struct {
				Output struct {
					Emails []struct {
						ID string `json:"email_id"`
					} `json:"emails"`
				} `json:"output"`
			}
			if err := json.Unmarshal(res.Body, &out); err != nil {
				t.Fatalf("%s: %v", res.Body, err)
			}
			var got []string
			for _, e := range out.Output.Emails {
				got = append(got, e.ID)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("ids %v\nwant %v", got, c.want)
			}
		})
	}
}
