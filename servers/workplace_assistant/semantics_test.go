package workplace_test

import (
	"strings"
	"testing"
)

// Behaviours derived from the reference tool code and spec sections 3 and 4
// (pagination arithmetic, Python exceptions from non-string arguments), in
// fresh sessions. Unlike section 9, these outputs were not observed by
// running the reference; each follows from the rules the spec states.
func TestDerivedSemantics(t *testing.T) {
	t.Parallel()
	ts, _ := newServer(t)
	const kofi = `"query":"kofi wireframe"`
	const kofiRow = `{"email_id":"00000259","inbox/outbox":"inbox","sender/recipient":"kofi.mensah@atlas.com","subject":"Task Update on Create wireframe for homepage","sent_datetime":"2023-11-22 15:22:52","body":"Hey Sam,\\n\\nStarting on 'Create wireframe for homepage' today. Any preliminary thoughts or resources you recommend before I dive in?\\n\\nThanks,\\nKofi"}`
	cases := []block{
		{"negative page_size follows the formulas", []step{
			{tool: "email_search_emails", body: `{` + kofi + `,"page_size":-1}`, want: `{"output":{"emails":[],"pagination":{"total_emails":1,"page":1,"page_size":-1,"total_pages":1}}}`},
		}},
		{"bool page_size is echoed, bool page becomes 1", []step{
			{tool: "email_search_emails", body: `{` + kofi + `,"page_size":true}`, want: `{"output":{"emails":[` + kofiRow + `],"pagination":{"total_emails":1,"page":1,"page_size":true,"total_pages":1}}}`},
			{tool: "email_search_emails", body: `{` + kofi + `,"page":true}`, want: `{"output":{"emails":[` + kofiRow + `],"pagination":{"total_emails":1,"page":1,"page_size":5,"total_pages":1}}}`},
			{tool: "email_search_emails", body: `{` + kofi + `,"page":-3}`, want: `{"output":{"emails":[` + kofiRow + `],"pagination":{"total_emails":1,"page":1,"page_size":5,"total_pages":1}}}`},
		}},
		{"customer pagination runs before the emptiness check", []step{
			{tool: "customer_relationship_manager_search_customers", body: `{"customer_name":"xyzzy","page_size":0}`, want: `{"output":"Error executing tool 'customer_relationship_manager_search_customers': integer division or modulo by zero"}`},
			{tool: "customer_relationship_manager_search_customers", body: `{"customer_name":"xyzzy","page_size":"5"}`, want: `{"output":"Error executing tool 'customer_relationship_manager_search_customers': unsupported operand type(s) for +: 'int' and 'str'"}`},
			{tool: "customer_relationship_manager_search_customers", body: `{"customer_name":"xyzzy","page_size":2.0}`, want: `{"output":"No customers found."}`},
			{tool: "customer_relationship_manager_search_customers", body: `{"customer_name":"casey","page_size":0.0}`, want: `{"output":"Error executing tool 'customer_relationship_manager_search_customers': float floor division by zero"}`},
		}},
		{"string bounds against other types", []step{
			{tool: "analytics_total_visits_count", body: `{"time_min":5}`, want: `{"output":"Error executing tool 'analytics_total_visits_count': '>=' not supported between instances of 'str' and 'int'"}`},
			{tool: "customer_relationship_manager_search_customers", body: `{"follow_up_by_max":true}`, want: `{"output":"Error executing tool 'customer_relationship_manager_search_customers': '<=' not supported between instances of 'str' and 'bool'"}`},
			{tool: "analytics_traffic_source_count", body: `{"time_min":"2023-11-30","traffic_source":"Referral"}`, want: `{"output":{"2023-11-30":0}}`},
		}},
		{"non-string arguments", []step{
			{tool: "email_send_email", body: `{"recipient":["@","."],"subject":"s","body":"b"}`, want: `{"output":"Error sending email: 'list' object has no attribute 'lower'"}`},
			{tool: "email_get_email_information_by_id", body: `{"email_id":"00000057","field":["x"]}`, want: `{"output":"Error retrieving email information: unhashable type: 'list'"}`},
			{tool: "email_get_email_information_by_id", body: `{"email_id":"00000057","field":1.5}`, want: `{"output":"Field '1.5' not found. Available fields: email_id, inbox/outbox, sender/recipient, subject, sent_datetime, body"}`},
			{tool: "email_search_emails", body: `{"query":7}`, want: `{"output":"Error searching emails: 'int' object has no attribute 'lower'"}`},
			{tool: "calendar_search_events", body: `{"query":7}`, want: `{"output":"Error executing tool 'calendar_search_events': first argument must be string or compiled pattern"}`},
			{tool: "calendar_create_event", body: `{"event_name":"E","participant_email":"a@b.c","event_start":true,"duration":"30"}`, want: `{"output":"Error executing tool 'calendar_create_event': Cannot convert input [True] of type <class 'bool'> to Timestamp"}`},
			{tool: "calendar_create_event", body: `{"event_name":"E","participant_email":7,"event_start":"2023-12-01","duration":"30"}`, want: `{"output":"Error executing tool 'calendar_create_event': 'int' object has no attribute 'lower'"}`},
			{tool: "calendar_create_event", body: `{"event_name":"E","participant_email":"a@b.c","event_start":"2023-12-01","duration":[1]}`, want: `{"output":"Error executing tool 'calendar_create_event': int() argument must be a string, a bytes-like object or a real number, not 'list'"}`},
			{tool: "project_management_get_task_information_by_id", body: `{"task_id":"00000149","field":{"a":1}}`, want: `{"output":"Error executing tool 'project_management_get_task_information_by_id': unhashable type: 'dict'"}`},
			{tool: "analytics_create_plot", body: `{"time_min":true,"time_max":[1,"a"],"value_to_plot":"total_visits","plot_type":"bar"}`, want: `{"output":"plots/True_[1, 'a']_total_visits_bar.png"}`},
		}},
		{"int() of durations", []step{
			{tool: "calendar_create_event", body: `{"event_name":"E","participant_email":"a@b.c","event_start":"2023-12-01","duration":1.5}`, want: `{"output":"00000300"}`},
			{tool: "calendar_create_event", body: `{"event_name":"E","participant_email":"a@b.c","event_start":"2023-12-01","duration":"abc"}`, want: `{"output":"Invalid duration format. Expected a number of minutes."}`},
			{tool: "calendar_create_event", body: `{"event_name":"E","participant_email":"a@b.c","event_start":"2023-12-01","duration":0.5}`, want: `{"output":"Duration must be a positive number of minutes."}`},
			{tool: "calendar_create_event", body: `{"event_name":"E","participant_email":"a@b.c","event_start":"2023-12-01","duration":"1_0"}`, want: `{"output":"00000301"}`},
			{tool: "calendar_update_event", body: `{"event_id":"00000013","field":"duration","new_value":"-5"}`, want: `{"output":"Duration must be a positive number of minutes."}`},
			{tool: "calendar_update_event", body: `{"event_id":"99999999","field":"duration","new_value":"5"}`, want: `{"output":"Event not found."}`},
		}},
		{"regex arguments are Python regexes", []step{
			{tool: "project_management_search_tasks", body: `{"task_name":"(?<=Add )animation to carousel","board":"front"}`, want: `{"output":[{"task_id":"00000149"`, prefix: true},
			{tool: "project_management_search_tasks", body: `{"task_name":"(?<=a+)b"}`, want: `{"output":"Error executing tool 'project_management_search_tasks': look-behind requires fixed-width pattern"}`},
			{tool: "company_directory_find_email_address", body: `{"name":"(a)\\1"}`, want: `{"output":[]}`},
			{tool: "company_directory_find_email_address", body: `{"name":"^(?:ai|ak)"}`, want: `{"output":["aisha.chen@atlas.com","akira.sato@atlas.com"]}`},
		}},
	}
	for _, b := range cases {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			ro := seeded(t, ts)
			for i, s := range b.steps {
				res := ro.Post("/"+s.tool, s.body)
				got := string(res.Body)
				ok := got == s.want
				if s.prefix {
					ok = strings.HasPrefix(got, s.want)
				}
				if res.Status != 200 || !ok {
					t.Errorf("step %d: POST /%s %s\n got: %d %s\nwant: 200 %s", i+1, s.tool, s.body, res.Status, got, s.want)
				}
			}
		})
	}
}
